/**
 * A generator's mistakes, played by wrapping the scripted generator's io (testkit/policies/generator.ts): the script
 * does its honest work and the wrapper changes what reaches the harness — an import of a module never written, a
 * registration left out, commits that never happen, a reply cut at the output limit, an earlier feature's line
 * dropped. Every change is a function of the plan and the call, so replays of the session see the same turns.
 */
import { parseGeneratorBrief } from '../policies/generator.js';
import { type CallResult, type ScriptIO, withAct } from '../policies/script.js';
import {
  API_MODULES,
  CLIENT_MODULES,
  MODULE_MARKER,
  type ScriptedFeature,
  TODO_DEPENDENCIES,
  TODO_FEATURES,
} from '../policies/todo-features.js';
import type { ScriptedToolCall } from '../types.js';
import type { MistakeKind } from './schedule.js';

/** The module a generator that breaks the start imports without writing it. */
export const MISSING_MODULE = 'validation.js';
const BROKEN_IMPORT = `import './${MISSING_MODULE}';`;

/** What a generator session does wrong, and what the wrapper tells the simulated model. */
export interface GeneratorMistake {
  kind: MistakeKind | undefined;
  /** For a regression: the registration line of the earlier feature it drops. */
  droppedLine?: string | undefined;
  /** Called each time the mistake shows in a turn (idempotent for the caller: replays call it again). */
  made(): void;
  /** Asks that the reply being sent now is cut at the output limit. */
  cut(): void;
}

/**
 * The client registration line of the latest earlier todo feature the given one does not depend on: what a
 * regression drops (undefined for the first features, which everything later needs, and outside the todo example).
 */
export function regressionTarget(feature: ScriptedFeature): string | undefined {
  const position = TODO_FEATURES.indexOf(feature as (typeof TODO_FEATURES)[number]);
  if (position < 0) return undefined;
  const needed = new Set(TODO_DEPENDENCIES[position] ?? []);
  for (let earlier = position - 1; earlier >= 0; earlier -= 1) {
    if (needed.has(earlier + 1)) continue;
    const registration = TODO_FEATURES[earlier]?.insertions.find(
      (insertion) => insertion.path === CLIENT_MODULES,
    );
    if (registration) return registration.lines[0];
  }
  return undefined;
}

const isWrite = (call: ScriptedToolCall) => call.name === 'write';
const editsRegistry = (call: ScriptedToolCall) =>
  call.name === 'edit' && typeof call.arguments !== 'string' && call.arguments.path === CLIENT_MODULES;

/** A result the harness never sent, for a call the model believes it made. */
function believed(call: ScriptedToolCall): CallResult {
  const args = typeof call.arguments === 'string' ? {} : call.arguments;
  return { name: call.name, arguments: args, content: 'ok', isError: false };
}

/** The edit that removes a line (and its newline) from a file. */
function removeLine(path: string, line: string): ScriptedToolCall {
  return { name: 'edit', arguments: { path, old_string: `${line}\n`, new_string: '' } };
}

/** The feedback of the brief without the harness sections after it (progress notes repeat old failures). */
function feedbackOnly(firstMessage: string): string {
  return parseGeneratorBrief(firstMessage)?.feedback?.split(/\n## Recent progress notes/)[0] ?? '';
}

/** Sends `calls` without the one at `index`; the script gets a believed result in its place. */
function actWithout(
  io: ScriptIO,
  calls: readonly ScriptedToolCall[],
  drop: number[],
  text?: string,
): CallResult[] {
  const kept = calls.filter((_call, index) => !drop.includes(index));
  const sent = kept.length ? io.act(kept, text) : [];
  let next = 0;
  return calls.map((call, index) => (drop.includes(index) ? believed(call) : (sent[next++] as CallResult)));
}

/** The generator's io with its mistake (if any) and its repair of an earlier start failure the feedback shows. */
export function mistakenIO(io: ScriptIO, mistake: GeneratorMistake): ScriptIO {
  let repairPending = feedbackOnly(io.firstMessage).includes(MISSING_MODULE);
  let pending = mistake.kind !== undefined;
  return withAct(io, (calls, text) => {
    if (repairPending) {
      repairPending = false;
      io.act(
        [removeLine(API_MODULES, BROKEN_IMPORT)],
        `The app did not start: ${API_MODULES} imports ./${MISSING_MODULE}, which I never wrote. Removing that import first.`,
      );
    }
    if (!pending) return io.act(calls, text);
    return actMistaken(io, mistake, calls, text, () => {
      pending = false;
    });
  });
}

/** One turn with the mistake in it when this is the turn it shows in; `done` when it will not show again. */
function actMistaken(
  io: ScriptIO,
  mistake: GeneratorMistake,
  calls: readonly ScriptedToolCall[],
  text: string | undefined,
  done: () => void,
): CallResult[] {
  switch (mistake.kind) {
    case 'appDoesNotStart': {
      if (!calls.some(isWrite)) break;
      done();
      mistake.made();
      const broken = {
        path: API_MODULES,
        old_string: MODULE_MARKER,
        new_string: `${BROKEN_IMPORT}\n${MODULE_MARKER}`,
      };
      return io.act([...calls, { name: 'edit', arguments: broken }], text).slice(0, calls.length);
    }
    case 'halfDone': {
      const registration = calls.findIndex(editsRegistry);
      if (registration < 0) break;
      done();
      mistake.made();
      return actWithout(io, calls, [registration], text);
    }
    case 'noCommit': {
      // Every commit of the session is left out: the model says it committed, and means it.
      const commits = calls.flatMap((call, index) => (call.name === 'commit' ? [index] : []));
      if (commits.length === 0) break;
      mistake.made();
      return actWithout(io, calls, commits, text);
    }
    case 'cutAtLimit': {
      // The first turn that does more than read: the feature's files, or the check of a feature already written.
      if (calls.every((call) => call.name === 'read')) break;
      done();
      try {
        io.act(calls, text);
      } catch (pendingReply) {
        mistake.made();
        mistake.cut();
        throw pendingReply;
      }
      return io.act(calls, 'My last reply was cut off at the output limit; sending the same changes again.');
    }
    case 'regression': {
      if (!mistake.droppedLine || !calls.some(editsRegistry)) break;
      done();
      mistake.made();
      return io.act([...calls, removeLine(CLIENT_MODULES, mistake.droppedLine)], text).slice(0, calls.length);
    }
    default:
      done();
  }
  return io.act(calls, text);
}
