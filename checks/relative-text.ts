/**
 * Numbers a check counts from what it saw itself: "2 items left" depends on every todo any check or session left
 * in the app, so a check records it relative to the same text read after one of its own earlier actions ("0 items
 * left" right after it opened the page: two more). Pure text work shared by the recorder, the replay and the
 * generated spec, so all three read the page alike.
 */
import type { ObservationEntry } from '../agent/tools/browser-log.js';
import { escapeRegExp } from '../core/regexp.js';

/** Shortest counted word given a plural-tolerant ending ("item" matches "items"; "of" stays "of"). */
const MIN_PLURAL_WORD = 4;

/** A text with its numbers as the pattern's only variable parts. */
export interface NumberPattern {
  /** Regular expression source (flags `i`): each number of the text is a `(\d+)` group. */
  source: string;
  /** The pieces of `source` between the number groups (one more than the numbers). */
  between: string[];
  /** The numbers of the text, in order. */
  numbers: number[];
}

/**
 * The text as a pattern: each run of digits a `(\d+)` group not touching other digits, the word after a number
 * tolerant of a plural ending (so "1 item left" and "2 items left" are one pattern), any whitespace run as `\s+`.
 * Undefined when the text holds no number.
 */
export function numberPattern(text: string): NumberPattern | undefined {
  const parts = text.trim().split(/(\d+)/);
  if (parts.length < 3) return undefined;
  const between: string[] = [];
  const numbers: number[] = [];
  parts.forEach((part, index) => {
    if (index % 2 === 1) numbers.push(Number(part));
    else between.push(tolerantSource(part, index > 0));
  });
  return { source: between.join(NUMBER_GROUP), between, numbers };
}

const NUMBER_GROUP = '(?<!\\d)(\\d+)(?!\\d)';

/** The text's regex source; the first word after a number may change its plural ending ("1 item", "2 items"). */
function tolerantSource(text: string, afterNumber: boolean): string {
  let counting = afterNumber;
  return text
    .split(/(\s+)/)
    .map((piece) => {
      if (/^\s+$/.test(piece)) return '\\s+';
      const word = /^(\p{L}+)$/u.exec(piece)?.[1];
      const counted = counting && piece !== '';
      if (piece !== '') counting = false;
      if (counted && word && word.length >= MIN_PLURAL_WORD) {
        const stem = word.replace(/(?:es|s)$/i, '');
        return `${escapeRegExp(stem)}(?:s|es)?`;
      }
      return escapeRegExp(piece);
    })
    .join('');
}

/** The pattern's source with these numbers in place of its groups (the text a replay expects). */
export function sourceWithNumbers(pattern: NumberPattern, numbers: readonly number[]): string {
  return pattern.between
    .map((piece, index) => (index === 0 ? piece : `(?<!\\d)${numbers[index - 1] ?? 0}(?!\\d)${piece}`))
    .join('');
}

/** The numbers of the first match of the pattern in the text, or undefined when it does not match. */
export function numbersMatched(pattern: NumberPattern, text: string): number[] | undefined {
  const match = new RegExp(pattern.source, 'i').exec(text);
  return match ? match.slice(1).map(Number) : undefined;
}

/**
 * The numbers a replay expects: what it read after the baseline action plus what the check changed when it was
 * recorded (`recorded` − `baseline`, number by number).
 */
export function expectedNumbers(
  recordedText: string,
  baselineText: string,
  readNow: readonly number[],
): number[] {
  const recorded = numberPattern(recordedText)?.numbers ?? [];
  const baseline = numberPattern(baselineText)?.numbers ?? [];
  return recorded.map((value, index) => (readNow[index] ?? 0) + value - (baseline[index] ?? 0));
}

/** Where a counted text was first seen in the session: after which check action, and as what text. */
export interface Baseline {
  afterAction: number;
  text: string;
}

/**
 * The first time the session was shown a text of the same pattern as `expected` (its own numbers possibly
 * different), as a baseline: the check action after which it was seen (`actionOfSeq` maps a log entry's
 * `afterAction` to the index of the check action it produced) and the text as shown. Undefined when the text has
 * no number or was never shown before.
 */
export function findBaseline(
  expected: string,
  entries: readonly ObservationEntry[],
  actionOfSeq: (seq: number) => number,
): Baseline | undefined {
  const pattern = numberPattern(expected);
  if (!pattern) return undefined;
  const regex = new RegExp(pattern.source, 'i');
  for (const entry of entries) {
    if (!entry.ok || !entry.snapshot) continue;
    const match = regex.exec(entry.snapshot);
    if (match) return { afterAction: actionOfSeq(entry.afterAction), text: match[0] };
  }
  return undefined;
}
