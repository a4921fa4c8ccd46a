/**
 * What an evaluator's browser session showed, in the form grounding compares quotes with (pure): each observation's
 * text (URL, title, snapshot, console, dialogs) without snapshot refs (tool plumbing, not page text) and without the
 * values of fields holding the text the session typed into them (typing "Buy milk" is not evidence that the page
 * lists it) unless a page load since wrote them back, plus the snapshot's lines parsed, so a quote that copies a line (`checkbox "Toggle milk" [checked]`) is
 * matched by role, name, states and text. Also: whether evidence only repeats the feature's own words.
 */
import { type ObservationEntry, type ObservedDocument, seenText } from '../agent/tools/browser-log.js';
import {
  comparableText,
  containsPhrase,
  type EvidenceQuote,
  evidenceQuotes,
  parseSnapshotLine,
  type SnapshotLine,
} from '../handoff/evidence.js';
import { contentWords, overlap } from './grounding-words.js';

/** One observation as grounding searches it. */
export interface SeenEntry {
  seq: number;
  afterAction: number;
  /** Everything shown, {@link comparableText}, refs and self-typed field values removed. */
  text: string;
  /** The snapshot's element lines, self-typed field values removed. */
  lines: SnapshotLine[];
}

/** Roles whose text after the colon is a value someone typed, not text the page wrote. */
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);

/**
 * Share of words both ways at which evidence only repeats a text of the feature (its description or a step).
 * Chosen from the grounding family's data (docs/benchmarks.md, "Grounded verdicts as models write them"): where the
 * rule applies, honest evidence repeats at most 0.44 of a feature text and copies at least 0.83; this is the middle.
 */
export const RESTATED_SHARE = 0.65;

/** What the session typed (`browser_type`): comparable texts, by the comparable name of the field ('' unknown). */
export type TypedTexts = ReadonlyMap<string, ReadonlySet<string>>;

/** The texts the session typed, by field. */
export function typedTexts(observations: readonly ObservationEntry[]): TypedTexts {
  const typed = new Map<string, Set<string>>();
  for (const { field, text } of typingsOf(observations)) {
    const texts = typed.get(field) ?? new Set<string>();
    texts.add(text);
    typed.set(field, texts);
  }
  return typed;
}

/** Whether the session typed `text` (into the field named `field`, when given). */
export function wasTyped(typed: TypedTexts, text: string, field?: string): boolean {
  const wanted = comparableText(text);
  if (field === undefined) return [...typed.values()].some((texts) => texts.has(wanted));
  return !!(typed.get(comparableText(field))?.has(wanted) || typed.get('')?.has(wanted));
}

/** One successful `browser_type`: into which field (comparable name, '' unknown), what, and the document after it. */
interface Typing {
  seq: number;
  field: string;
  text: string;
  document: ObservedDocument | undefined;
}

function typingsOf(observations: readonly ObservationEntry[]): Typing[] {
  return observations.flatMap((entry) => {
    const text = entry.args.text;
    if (!entry.ok || entry.tool !== 'browser_type' || typeof text !== 'string') return [];
    const field = comparableText(entry.target?.name ?? entry.target?.label ?? '');
    return [{ seq: entry.seq, field, text: comparableText(text), document: entry.document }];
  });
}

/** The successful observations as grounding searches them. */
export function seenEntries(observations: readonly ObservationEntry[], typed: TypedTexts): SeenEntry[] {
  const typings = typingsOf(observations);
  return observations
    .filter((entry) => entry.ok)
    .map((entry) => {
      const lines: SnapshotLine[] = [];
      const shown = stripRefs(seenText(entry))
        .split('\n')
        .map((raw) => {
          const line = parseSnapshotLine(raw);
          if (!line) return raw;
          const kept = withoutTypedValue(line, typed, (value) => appWroteBack(typings, entry, line, value));
          lines.push(kept);
          return kept === line ? raw : printLine(kept);
        });
      return {
        seq: entry.seq,
        afterAction: entry.afterAction,
        text: comparableText(shown.join('\n')),
        lines,
      };
    });
}

/**
 * A field's value is dropped when the session typed that very text into that field (an app's prefill stays), unless
 * the app wrote it back (`wroteBack`).
 */
function withoutTypedValue(
  line: SnapshotLine,
  typed: TypedTexts,
  wroteBack: (value: string) => boolean,
): SnapshotLine {
  const value = line.text;
  if (!FIELD_ROLES.has(line.role) || value === undefined || !wasTyped(typed, value, line.name ?? ''))
    return line;
  if (wroteBack(value)) return line;
  const { text: _value, ...rest } = line;
  return rest;
}

/**
 * Whether a field showing `value` at `entry` shows what the app wrote, though the session typed that text there:
 * the entry's document is a new one, loaded by a navigation (a form's POST response, a link; not a reload or a step
 * back, where the browser itself may restore a form) after every typing of the text into the field up to the entry.
 * "Pat" typed, "Create account" clicked and the refused form shown again with "Pat" in it is the app's page; "Pat"
 * typed and quoted from its field without a page load is not. An unknown document counts as no page load.
 */
function appWroteBack(
  typings: readonly Typing[],
  entry: ObservationEntry,
  line: SnapshotLine,
  value: string,
): boolean {
  const shown = entry.document;
  if (shown?.navigation !== 'navigate') return false;
  const field = comparableText(line.name ?? '');
  const text = comparableText(value);
  return typings.every(
    (typing) =>
      typing.text !== text ||
      (typing.field !== field && typing.field !== '') ||
      typing.seq > entry.seq ||
      (typing.document !== undefined && typing.document.origin !== shown.origin),
  );
}

function printLine(line: SnapshotLine): string {
  const name = line.name === undefined ? '' : ` "${line.name}"`;
  const states = line.states.map((state) => ` [${state}]`).join('');
  return `- ${line.role}${name}${states}${line.text === undefined ? '' : `: ${line.text}`}`;
}

/** Snapshot refs (`[ref=e12]`) are tool plumbing, not page text: a quoted "12" must not match them. */
export function stripRefs(text: string): string {
  return text.replace(/\s*\[ref=(?:f\d+)?e\d+\]/g, '');
}

/** Whether an observation showed what a quote claims: its text as whole words, or the snapshot line it copies. */
export function seenQuote(entry: SeenEntry, quote: EvidenceQuote): boolean {
  const line = quote.line;
  if (!line) return containsPhrase(entry.text, comparableText(quote.text));
  const written = comparableText(stripRefs(quote.written).replace(/^-\s*/, ''));
  return containsPhrase(entry.text, written) || entry.lines.some((seen) => sameLine(seen, line));
}

/** A seen snapshot line has the quoted line's role and states, and its name and text as whole words. */
function sameLine(seen: SnapshotLine, quoted: SnapshotLine): boolean {
  if (seen.role !== quoted.role) return false;
  if (!quoted.states.every((state) => seen.states.includes(state))) return false;
  const has = (value: string | undefined, wanted: string | undefined) =>
    wanted === undefined ||
    (value !== undefined && containsPhrase(comparableText(value), comparableText(wanted)));
  return has(seen.name, quoted.name) && has(seen.text, quoted.text);
}

/** How much of `text` evidence repeats, and how much of the evidence it is: the smaller of the two shares of words. */
export function restatementShare(evidence: string, text: string): number {
  const share = overlap(contentWords(evidence), contentWords(text));
  return Math.min(share.recall, share.precision);
}

/** The feature's own texts, which evidence must do more than repeat. */
export interface FeatureTexts {
  description: string;
  steps: readonly string[];
}

/**
 * Which feature text evidence only repeats ("the feature description", "step 3"), or undefined. Evidence repeats a
 * text when it shares at least {@link RESTATED_SHARE} of its words with that text both ways and its quotes add
 * nothing: each is a text the feature itself quotes and was on the page already before the action that brought it
 * (`shownBefore`). So a copy of 'The "New todo" box is empty' repeats the step, but 'The list says "No todos yet"'
 * is evidence once the page shows "No todos yet" where it did not before. An action step may describe itself
 * (`acted`): the log shows it was done.
 */
export function restatedText(
  evidence: string,
  quotes: readonly EvidenceQuote[],
  feature: FeatureTexts,
  step: { index: number; acted: boolean },
  shownBefore: (quote: EvidenceQuote) => boolean,
): string | undefined {
  const featureQuotes = new Set(
    [feature.description, ...feature.steps].flatMap((text) =>
      evidenceQuotes(text).map((quote) => comparableText(quote.text)),
    ),
  );
  const adds = (quote: EvidenceQuote) =>
    !featureQuotes.has(comparableText(quote.text)) || !shownBefore(quote);
  if (quotes.some(adds)) return undefined;
  if (contentWords(evidence).length === 0) return undefined;
  const repeats = (text: string) => restatementShare(evidence, text) >= RESTATED_SHARE;
  if (feature.description && repeats(feature.description)) return 'the feature description';
  const repeated = feature.steps.findIndex(
    (text, index) => !(step.acted && index === step.index) && repeats(text),
  );
  if (repeated < 0) return undefined;
  return repeated === step.index ? "the step's own words" : `step ${repeated + 1}`;
}
