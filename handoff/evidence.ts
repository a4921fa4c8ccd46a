/**
 * Reading the quotes of a verdict's evidence the way models write them: "…", '…', “…”, ‘…’, `…`, «…», „…“ and
 * fenced blocks, with trailing punctuation or extra spaces inside the marks, and copies of aria snapshot lines
 * (`heading "Todos" [level=1]`, `- status [ref=e14]: 2 items left`). One reader for everything that takes
 * evidence at its word: grounding (evaluation/grounding.ts) and the recorded checks' expectations (checks/recorder.ts).
 */
import { z } from 'zod';

/** One line of a Playwright aria snapshot (AI mode), as a model may copy it. */
export const SnapshotLine = z.object({
  /** ARIA role, e.g. `checkbox`. */
  role: z.string(),
  /** Accessible name (the quoted part), if any. */
  name: z.string().optional(),
  /** Bracketed states other than the ref, e.g. `checked`, `level=1`. */
  states: z.array(z.string()),
  /** What follows the colon: the element's text or value, if any. */
  text: z.string().optional(),
});
export type SnapshotLine = z.infer<typeof SnapshotLine>;

/** One quote of an evidence text. */
export const EvidenceQuote = z.object({
  /** As written between the marks, trimmed. */
  written: z.string(),
  /**
   * The page text it claims: spaces collapsed, trailing sentence punctuation and ellipses dropped (a page
   * showing "Saved!" is quoted as "Saved!", "Saved." or "Saved"); for a snapshot line, its text, else its name.
   */
  text: z.string(),
  /** Set when the quote copies an aria snapshot line. */
  line: SnapshotLine.optional(),
});
export type EvidenceQuote = z.infer<typeof EvidenceQuote>;

/** Opening mark → closing mark. Single marks also serve as apostrophes, so they are read with care. */
const MARKS: Record<string, string> = {
  '"': '"',
  '“': '”',
  '„': '“',
  '«': '»',
  '`': '`',
  "'": "'",
  '‘': '’',
};

const APOSTROPHES = new Set(["'", '‘', '’']);

/** Characters of evidence read for quotes, and the longest quote: page texts are short, evidence is model output. */
const MAX_EVIDENCE_CHARS = 20_000;
const MAX_QUOTE_CHARS = 1_000;
/**
 * How far a quote may go on over line ends: a typed multi-line value (an ingredient list, an address) is a few
 * short lines; anything longer is more likely a stray mark than a quote.
 */
const MAX_QUOTE_LINES = 5;
const MAX_MULTILINE_QUOTE_CHARS = 300;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The quotes of an evidence text, in order. A quote ends at its closing mark on the same line; single marks
 * open only where a word starts and close only where one ends, so `didn't` and `the todo's box` are words,
 * not quotes. A quote whose line has no closing mark goes on over line ends only when both its lines read alone
 * leave a mark unpaired and it closes within a few short lines ({@link multiLineClose}): `Typed "200 g lentils` /
 * `1 onion" into …` is one quote, while a stray mark before a line whose own marks pair up opens nothing. A quote is taken whole (`heading "Todos" [level=1]` in backticks is one quote, not "Todos").
 * Each line of a fenced block (```) is a quote of its own. Only the first 20,000 characters are read, and a quote
 * is at most 1,000 characters long (a bound on the work a long evidence text can cause).
 */
export function evidenceQuotes(evidence: string): EvidenceQuote[] {
  const quotes: EvidenceQuote[] = [];
  const text = evidence
    .slice(0, MAX_EVIDENCE_CHARS)
    .replace(/```[^\n]*\n([\s\S]*?)```/g, (_whole, body: string) => {
      for (const line of body.split('\n')) pushQuote(quotes, line);
      return ' ';
    });
  const next = nextIndexIn(text);
  let at = 0;
  while (at < text.length) {
    const close = closingMark(text, at);
    const end =
      close === undefined
        ? undefined
        : (findClose(text, at + 1, close, next) ?? multiLineClose(text, at, close));
    if (!end) {
      at += 1;
      continue;
    }
    // A quote too long to be page text is passed over whole: its closing mark opens nothing.
    if (!end.tooLong) pushQuote(quotes, text.slice(at + 1, end.at));
    at = end.at + 1;
  }
  return quotes;
}

/** The closing mark for a quote opening at `at`, if a quote can open there. */
function closingMark(text: string, at: number): string | undefined {
  const mark = text[at] as string;
  const close = MARKS[mark];
  if (!close) return undefined;
  // An apostrophe after a letter (don't, todos') opens nothing.
  if (APOSTROPHES.has(mark) && at > 0 && WORD_CHAR.test(text[at - 1] as string)) return undefined;
  return close;
}

/** `text.indexOf(char, from)`, remembered per character: the scan only moves forward, so each search is reused. */
type NextIndex = (char: string, from: number) => number;

function nextIndexIn(text: string): NextIndex {
  const memo = new Map<string, { from: number; at: number }>();
  return (char, from) => {
    const known = memo.get(char);
    if (known && known.from <= from && (known.at === -1 || known.at >= from)) return known.at;
    const at = text.indexOf(char, from);
    memo.set(char, { from, at });
    return at;
  };
}

/** Whether `text[index]` closes a quote with mark `close` (a single mark followed by a letter is an apostrophe). */
function closesAt(text: string, index: number, close: string): boolean {
  return !(APOSTROPHES.has(close) && WORD_CHAR.test(text[index + 1] ?? ''));
}

/**
 * Where the quote opened just before `from` closes on its line, and whether it is longer than
 * {@link MAX_QUOTE_CHARS} (then skipped whole); undefined when its line ends first.
 */
function findClose(
  text: string,
  from: number,
  close: string,
  next: NextIndex,
): { at: number; tooLong: boolean } | undefined {
  const newline = next('\n', from);
  const lineEnd = newline < 0 ? text.length : newline;
  // An empty quote ("") is no quote: the search starts one character in.
  let index = next(close, from + 1);
  while (index >= 0 && index < lineEnd && !closesAt(text, index, close)) index = next(close, index + 1);
  if (index < 0 || index >= lineEnd) return undefined;
  return { at: index, tooLong: index - from > MAX_QUOTE_CHARS };
}

/**
 * Where a quote opened at `open` that has no closing mark on its line closes on a later line, if it may: the mark
 * is not a single quote (those double as apostrophes), no other mark of its kind comes before the closing one, the
 * closing line read alone leaves that mark unpaired (an odd count of a straight mark, more closing than opening
 * curly ones), and the quote spans at most {@link MAX_QUOTE_LINES} lines and {@link MAX_MULTILINE_QUOTE_CHARS}
 * characters. So a line whose own quotes pair up is never swallowed by a stray mark above it.
 */
function multiLineClose(
  text: string,
  open: number,
  close: string,
): { at: number; tooLong: false } | undefined {
  const mark = text[open] as string;
  if (APOSTROPHES.has(close)) return undefined;
  const limit = Math.min(text.length, open + 1 + MAX_MULTILINE_QUOTE_CHARS);
  let lineStart = text.indexOf('\n', open + 1);
  if (lineStart < 0) return undefined;
  const openingRest = text.slice(open + 1, lineStart);
  if (openingRest.includes(mark) || openingRest.includes(close)) return undefined;
  for (let lines = 2; lines <= MAX_QUOTE_LINES && lineStart >= 0 && lineStart < limit; lines += 1) {
    const newline = text.indexOf('\n', lineStart + 1);
    const line = text.slice(lineStart + 1, newline < 0 ? text.length : newline);
    const closeAt = line.indexOf(close);
    if ((closeAt < 0 ? line : line.slice(0, closeAt)).includes(mark)) return undefined;
    if (closeAt >= 0) {
      const at = lineStart + 1 + closeAt;
      return at < limit && leavesUnpaired(line, mark, close) ? { at, tooLong: false } : undefined;
    }
    lineStart = newline;
  }
  return undefined;
}

/** Whether a line read alone leaves a closing mark unpaired. */
function leavesUnpaired(line: string, mark: string, close: string): boolean {
  const count = (char: string) => line.split(char).length - 1;
  return mark === close ? count(close) % 2 === 1 : count(close) > count(mark);
}

function pushQuote(quotes: EvidenceQuote[], raw: string): void {
  const written = raw.trim();
  if (!written) return;
  const line = parseSnapshotLine(written);
  const claimed = line ? (line.text ?? line.name ?? '') : written;
  const text = cleanQuote(claimed);
  if (!text && !line) return;
  quotes.push(line ? { written, text, line } : { written, text });
}

/** Spaces collapsed, trailing sentence punctuation and ellipses removed. */
function cleanQuote(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(?:\s*(?:[.,;:!?]|…|\.\.\.))+$/u, '')
    .trim();
}

const LINE = /^(?:-\s+)?([a-z][a-z-]*)(?:\s+"((?:[^"\\]|\\.)*)")?((?:\s+\[[^\]]+\])*)(?:\s*:(?:\s+(.*))?)?$/;

/**
 * A copy of an aria snapshot line (`- checkbox "Toggle milk" [checked] [ref=e5]`, `status: 2 items left`),
 * or undefined. A bare word is not a line: it needs a name, a state, a text after a colon, or the leading dash.
 */
export function parseSnapshotLine(raw: string): SnapshotLine | undefined {
  const trimmed = raw.trim();
  const match = LINE.exec(trimmed);
  if (!match) return undefined;
  const [, role, name, brackets = '', text] = match;
  const states = [...brackets.matchAll(/\[([^\]]+)\]/g)]
    .map((state) => (state[1] as string).trim())
    .filter((state) => !/^ref=/.test(state));
  const shaped = trimmed.startsWith('-') || name !== undefined || brackets !== '' || text !== undefined;
  if (!role || !shaped) return undefined;
  const line: SnapshotLine = { role, states };
  if (name !== undefined) line.name = name.replace(/\\(.)/g, '$1');
  const value = text?.trim();
  if (value) line.text = /^".*"$/.test(value) ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
  return line;
}

/**
 * Text in the form grounding compares: Unicode-normalized, lower case, typographic quotes, apostrophes,
 * dashes, ellipses and no-break spaces made plain, spaces collapsed.
 */
export function comparableText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/[\u200b-\u200d\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether `phrase` occurs in `text` as whole words (both already {@link comparableText}): "2 items left" is in
 * "2 items left" but not in "12 items left"; "milk" is in "buy milk" but not in "milkshake".
 */
export function containsPhrase(text: string, phrase: string): boolean {
  if (!phrase) return false;
  let from = text.indexOf(phrase);
  while (from >= 0) {
    const before = from === 0 ? '' : (text[from - 1] as string);
    const after = text[from + phrase.length] ?? '';
    const startsClean = !WORD_CHAR.test(phrase[0] as string) || !WORD_CHAR.test(before);
    const endsClean = !WORD_CHAR.test(phrase.at(-1) as string) || !WORD_CHAR.test(after);
    if (startsClean && endsClean) return true;
    from = text.indexOf(phrase, from + 1);
  }
  return false;
}
