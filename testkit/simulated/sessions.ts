/**
 * Telling sessions apart from the request stream. A policy sees one request at a time; a session is the set of
 * requests that share a system prompt and first message (the harness puts a fresh port, the git log and the
 * progress tail in every brief, so two sessions do not share one). The n-th distinct session of a subject (role and
 * feature) has ordinal n-1, which is what the mistake schedule is keyed on.
 */
import { createHash } from 'node:crypto';

/** The key of the session a request belongs to. */
export function sessionKey(system: string, firstMessage: string): string {
  return createHash('sha256').update(system).update('\0').update(firstMessage).digest('hex');
}

/** The sessions of each subject, in the order they were first seen. */
export class SessionLedger {
  private readonly seen = new Map<string, string[]>();

  /** The ordinal of the session `key` among the sessions of `subject` (a new key is appended). */
  ordinal(subject: string, key: string): number {
    const keys = this.seen.get(subject) ?? [];
    let index = keys.indexOf(key);
    if (index < 0) {
      index = keys.length;
      keys.push(key);
      this.seen.set(subject, keys);
    }
    return index;
  }
}
