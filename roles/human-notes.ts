/**
 * What a person told the harness about one feature (`nightshift note`, `reopen`, `unblock`, or the dashboard):
 * kept on the feature in the run store and shown to the feature's next sessions, generator or evaluator.
 */
import { z } from 'zod';

/** Which steering action wrote the note. */
export const HumanNoteKind = z.enum(['note', 'reopen', 'unblock']);
export type HumanNoteKind = z.infer<typeof HumanNoteKind>;

/** One note a person left on a feature. */
export const HumanNote = z.object({
  kind: HumanNoteKind,
  /** The person's words, verbatim (for `reopen`: the reason). */
  text: z.string(),
  /** Who: `cli:<os user>` or `dashboard`. */
  by: z.string(),
  /** When (ISO time). */
  at: z.string(),
});
export type HumanNote = z.infer<typeof HumanNote>;

/** Notes a brief shows at most (the newest): older ones are in the run's events. */
export const NOTES_IN_BRIEF = 10;

const LEAD: Record<HumanNoteKind, string> = {
  note: 'Note',
  reopen: 'Reopened (it passed, but a person found it wrong; its recorded check stays and must keep passing)',
  unblock: 'Unblocked (new attempts)',
};

/** How each role is told to use the notes: a generator builds by them, an evaluator judges with them in mind. */
const USE: Record<'generator' | 'evaluator', string> = {
  generator:
    'A person watching this run wrote these about this feature. They know what they want: follow them where the spec leaves room, and say in progress.md what you did about each.',
  evaluator:
    'A person watching this run wrote these about this feature. They know what they want: where a note says what the app must do or show, check that too, and fail the feature if it does not.',
};

/** The notes as a generator's or an evaluator's brief shows them, newest last; null when there are none. */
export function humanNotesText(
  notes: readonly HumanNote[] | undefined,
  role: 'generator' | 'evaluator' = 'generator',
): string | null {
  if (!notes || notes.length === 0) return null;
  const lines = notes
    .slice(-NOTES_IN_BRIEF)
    .map(
      (note) => `- ${LEAD[note.kind]}, by ${note.by} at ${note.at}:\n  ${note.text.replace(/\n/g, '\n  ')}`,
    );
  return [USE[role], ...lines].join('\n');
}
