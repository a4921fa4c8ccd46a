/**
 * The scripted generator: implements the ONE feature named in its first message with the real tools
 * (read the files it changes, write the feature's modules, insert registrations above marker comments
 * with edit, check the app from the shell, append a progress note, commit). The first implementation
 * of the remaining count carries a planted bug; given evaluator feedback on it, the generator fixes it.
 */

import type { ScriptedToolCall } from '../types.js';
import {
  exampleFeatureDescribed,
  exampleFeatureIn,
  exampleOf,
  type ScriptedExample,
  TODO_EXAMPLE,
} from './examples.js';
import { commitAll } from './initializer.js';
import { type CallResult, exitCodeOf, fileTextOfRead, type ScriptIO } from './script.js';
import type { MarkerInsertion, ScriptedFeature } from './todo-features.js';
import { featureFiles } from './todo-sources.js';

/** What the generator's first message asks for. */
export interface GeneratorBrief {
  featureId: string;
  feature: ScriptedFeature | undefined;
  /** The evaluator feedback section (heading and all that follows), or null when there is none. */
  feedback: string | null;
}

/** Corrections (uncommitted work, no commit) the generator answers before it just stops. */
const MAX_CORRECTIONS = 2;

/** Finds the feature id (the first `F-nnn`), the catalogue feature and any evaluator feedback. */
export function parseGeneratorBrief(message: string): GeneratorBrief | undefined {
  const idMatch = /F-\d{3,}/.exec(message);
  if (!idMatch) return undefined;
  const featureId = idMatch[0];
  const lineStart = message.lastIndexOf('\n', idMatch.index) + 1;
  const lineEnd = message.indexOf('\n', idMatch.index);
  const headingLine = message.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const described = headingLine
    .slice(headingLine.indexOf(featureId) + featureId.length)
    .replace(/^[\s:–—-]+/, '');
  const byNumber = TODO_EXAMPLE.features[Number(featureId.slice(2)) - 1];
  const feature =
    exampleFeatureDescribed(described)?.feature ?? exampleFeatureIn(headingLine)?.feature ?? byNumber;
  return { featureId, feature, feedback: feedbackSection(message) };
}

/** The text from a heading that mentions feedback to the end, unless the section is empty. */
function feedbackSection(message: string): string | null {
  const heading = /^#{1,6}[^\n]*feedback[^\n]*$/im.exec(message);
  if (!heading) return null;
  const rest = message.slice(heading.index);
  const firstBodyLine =
    rest
      .split('\n')
      .slice(1)
      .find((line) => line.trim() !== '') ?? '';
  if (/^\(?(none|no feedback)/i.test(firstBodyLine.trim())) return null;
  return rest;
}

/** The most telling line of the feedback (a failing step or its evidence), for notes and commit messages. */
export function feedbackGist(feedback: string): string {
  const lines = feedback.split('\n').map((line) => line.trim());
  const evidence = lines.find((line) => /^evidence:/i.test(line));
  const failing = lines.find((line) => line.startsWith('- ✗') || /\bfail/i.test(line));
  return (evidence ?? failing ?? lines[1] ?? '').slice(0, 300);
}

/** A slip of a generator's first try: a text of the feature's files written wrong (`from` → `to`). */
export interface Slip {
  from: string;
  to: string;
}

/**
 * Code a generator's first try at a feature appends to one of the feature's own files that breaks another feature
 * (which the feature's own check does not exercise); taken out again when feedback says the merge broke others.
 */
export interface Breakage {
  /** One of the files the feature writes (its `sourceDir`). */
  path: string;
  /** Appended to that file. */
  text: string;
  /** What taking it out fixes, for the commit message and the progress note. */
  explanation: string;
}

/** How a generator differs from the scripted one that always writes its feature right. */
export interface GeneratorHabits {
  /** The slip this generator makes on its first try at the feature, if any (deterministic per feature). */
  slip(featureId: string, feature: ScriptedFeature, firstMessage: string): Slip | undefined;
  /** The breakage this generator's first try at the feature adds, if any. */
  breakage?(featureId: string, feature: ScriptedFeature): Breakage | undefined;
}

/** Feedback of the merge queue or a full sweep saying the feature's merge broke other features' checks. */
const BROKE_OTHERS = /broke (other features|recorded checks)/i;

/** The generator session (`habits`: a generator that slips, for measurements; default none). */
export function generatorScript(io: ScriptIO, habits?: GeneratorHabits): void {
  const brief = parseGeneratorBrief(io.firstMessage);
  if (!brief?.feature) {
    io.finish(
      `This scripted model does not know the feature ${brief?.featureId ?? '(no feature id found)'}; nothing changed.`,
    );
    return;
  }
  const { featureId, feature, feedback } = brief;
  const conflicted = feedback ? conflictedFiles(feedback) : [];
  if (conflicted.length > 0) {
    resolveConflicts(io, featureId, conflicted);
    return;
  }
  const bug = feature.plantedBug;
  const breakage = habits?.breakage?.(featureId, feature);
  const paths = [
    ...new Set([
      ...feature.insertions.map((insertion) => insertion.path),
      ...(bug ? [bug.path] : []),
      ...(breakage ? [breakage.path] : []),
    ]),
  ];
  const intro = feedback
    ? `Working on ${featureId} again; the evaluator's feedback: ${feedbackGist(feedback)}`
    : `Working on ${featureId}: ${feature.summary}.`;
  const reads = io.act(
    paths.map((path) => ({ name: 'read', arguments: { path } })),
    `${intro} Reading the files I will change.`,
  );
  const files = new Map(
    reads.map((read, index) => [paths[index] as string, read.isError ? '' : fileTextOfRead(read.content)]),
  );
  const done = feature.insertions.every((insertion) =>
    files.get(insertion.path)?.includes(insertion.lines[0] as string),
  );
  const slip = habits?.slip(featureId, feature, io.firstMessage);
  const work: Rework = done
    ? fixOrRecheck(io, brief, files, { slip, breakage })
    : { notes: implement(io, featureId, feature, files, { slip, breakage }) };
  const notes = work.notes;
  const check = io.call(
    'bash',
    { command: exampleOf(feature).verifyCommand(feature.verify, `${featureId} checks passed`) },
    'Starting the app on a free port and checking the feature with curl.',
  );
  const verified = exitCodeOf(check.content) === 0;
  notes.push(
    verified
      ? 'Checked from the shell (curl against the started app): OK.'
      : `Shell check FAILED:\n${lastLines(check.content, 12)}`,
  );
  const subject = work.fixed
    ? `fix ${work.fixedWhat ?? bug?.explanation ?? `the text ${slip?.to} (${slip?.from})`}`
    : feature.summary;
  commitAll(io, `${featureId}: ${subject}`, appendProgressCommand(featureId, subject, notes));
  let correction = io.finish(
    `${featureId}: ${subject}. ${verified ? 'Checked with curl and committed.' : 'Committed, but my shell check failed.'}`,
  );
  for (let round = 1; round <= MAX_CORRECTIONS && correction.trim() !== ''; round++) {
    commitAll(io, `${featureId}: commit remaining changes`);
    correction = io.finish('Committed the remaining changes.');
  }
}

/** Files the merge queue's feedback lists as holding conflict markers (lanes mode). */
export function conflictedFiles(feedback: string): string[] {
  const at = feedback.search(/conflict markers/i);
  if (at < 0) return [];
  return [...feedback.slice(at).matchAll(/^- (\S+)$/gm)].map((match) => match[1] as string);
}

/**
 * Both sides of every conflict, theirs (the run branch: features merged earlier) first, then ours, a line both sides
 * have kept once: right for the todo app, whose lanes insert registrations above one marker line, in build order.
 */
export function keepBothSides(text: string): string {
  return text.replace(
    /^<{7}[^\n]*\n([\s\S]*?)^={7}\n([\s\S]*?)^>{7}[^\n]*(\n|$)/gm,
    (_match, ours: string, theirs: string, end: string) => {
      const kept = ours.split('\n').filter((line) => line !== '');
      const added = theirs.split('\n').filter((line) => line !== '' && !kept.includes(line));
      // Both sides' lines go before the lines they share at the end (the marker the registrations sit above).
      const shared = kept.filter((line) => theirs.split('\n').includes(line));
      const own = kept.filter((line) => !shared.includes(line));
      return `${[...added, ...own, ...shared].join('\n')}${end}`;
    },
  );
}

/** A merge conflict in the brief: read each file, keep both sides, commit. */
function resolveConflicts(io: ScriptIO, featureId: string, files: string[]): void {
  const reads = io.act(
    files.map((path) => ({ name: 'read', arguments: { path } })),
    `The merge queue sent ${featureId} back with conflicts; reading ${files.join(', ')}.`,
  );
  io.act(
    reads.map((read, index) => ({
      name: 'write',
      arguments: { path: files[index] as string, content: keepBothSides(fileTextOfRead(read.content)) },
    })),
    'Both sides add registrations at the same marker: keeping both.',
  );
  commitAll(
    io,
    `${featureId}: resolve merge conflicts`,
    appendProgressCommand(featureId, 'resolved merge conflicts', [`Kept both sides in ${files.join(', ')}.`]),
  );
  io.finish(`${featureId}: merge conflicts resolved (both sides kept) and committed.`);
}

/** What a first try gets wrong, if anything. */
interface FirstTry {
  slip?: Slip | undefined;
  breakage?: Breakage | undefined;
}

/** Writes the feature's new files and inserts its registrations; returns notes for the progress log. */
function implement(
  io: ScriptIO,
  featureId: string,
  feature: ScriptedFeature,
  files: Map<string, string>,
  { slip, breakage }: FirstTry,
): string[] {
  const notes: string[] = [];
  const example: ScriptedExample = exampleOf(feature);
  const written = featureFiles(feature.sourceDir, example.sourcesDir).map((file) => {
    const content = slip ? file.content.replaceAll(slip.from, slip.to) : file.content;
    return { ...file, content: breakage?.path === file.path ? content + breakage.text : content };
  });
  const writes: ScriptedToolCall[] = written.map((file) => ({
    name: 'write',
    arguments: { path: file.path, content: file.content },
  }));
  const edits: ScriptedToolCall[] = [];
  for (const insertion of feature.insertions) {
    // An interrupted earlier session may have registered part of the feature already.
    if (files.get(insertion.path)?.includes(insertion.lines[0] as string)) continue;
    const edit = insertionEdit(insertion, files.get(insertion.path) ?? '');
    if (edit) edits.push({ name: 'edit', arguments: edit });
    else
      notes.push(
        `Could not find the marker "${insertion.marker}" in ${insertion.path}; registration skipped.`,
      );
  }
  const results = io.act(
    [...writes, ...edits],
    `Implementing ${featureId}: new modules, then registering them.`,
  );
  notes.unshift(
    `Wrote ${written.map((file) => file.path).join(', ')}; registered in ${[...new Set(feature.insertions.map((i) => i.path))].join(', ')}.`,
  );
  notes.push(...failures(results));
  return notes;
}

/** What a session on a feature already in place did: notes, and whether (and what) it fixed. */
interface Rework {
  notes: string[];
  fixed?: boolean;
  fixedWhat?: string;
}

/**
 * The feature is already in place: take out the breakage when feedback says its merge broke other features, fix
 * the planted bug when feedback says it fails, else only re-check.
 */
function fixOrRecheck(
  io: ScriptIO,
  brief: GeneratorBrief,
  files: Map<string, string>,
  { slip, breakage }: FirstTry,
): Rework {
  const bug = brief.feature?.plantedBug;
  if (brief.feedback && breakage && BROKE_OTHERS.test(brief.feedback)) {
    if (files.get(breakage.path)?.includes(breakage.text.trim())) return removeBreakage(io, breakage);
  }
  if (brief.feedback && slip && brief.feature) return rewriteSlip(io, brief.feature, slip);
  if (!brief.feedback || !bug) {
    return { notes: ['The feature was already in place; re-checked it without changes.'] };
  }
  if (!(files.get(bug.path) ?? '').includes(bug.buggy)) {
    const note = `Feedback says the feature fails, but ${bug.path} does not hold the code I expected; re-checked only.`;
    return { notes: [note] };
  }
  const results = io.act(
    [{ name: 'edit', arguments: { path: bug.path, old_string: bug.buggy, new_string: bug.fixed } }],
    `The evaluator saw the count go wrong. Found it in ${bug.path}: the count included completed todos. Fixing it.`,
  );
  const note = `Fixed after evaluator feedback (${feedbackGist(brief.feedback)}): ${bug.explanation}.`;
  return { notes: [note, ...failures(results)], fixed: !results.some((result) => result.isError) };
}

/** The feedback names features the first try broke: the code that broke them taken out. */
function removeBreakage(io: ScriptIO, breakage: Breakage): Rework {
  const results = io.act(
    [{ name: 'edit', arguments: { path: breakage.path, old_string: breakage.text.trim(), new_string: '' } }],
    `The feedback says my merge broke other features' checks. Found it in ${breakage.path}: ${breakage.explanation}. Taking it out.`,
  );
  const note = `Fixed after the merge queue's feedback: ${breakage.explanation}.`;
  return {
    notes: [note, ...failures(results)],
    fixed: !results.some((result) => result.isError),
    fixedWhat: breakage.explanation,
  };
}

/** The feedback names what the first try wrote wrong: the feature's files written again, right. */
function rewriteSlip(
  io: ScriptIO,
  feature: ScriptedFeature,
  slip: Slip,
): { notes: string[]; fixed: boolean } {
  const files = featureFiles(feature.sourceDir, exampleOf(feature).sourcesDir);
  const results = io.act(
    files.map((file) => ({ name: 'write', arguments: { path: file.path, content: file.content } })),
    `The evaluator could not find what it looked for: I wrote ${slip.to} where the feature needs ${slip.from}. Fixing it.`,
  );
  const note = `Fixed after evaluator feedback: ${slip.to} is ${slip.from} again.`;
  return { notes: [note, ...failures(results)], fixed: !results.some((result) => result.isError) };
}

/** `edit` arguments inserting the lines above the marker line, with its indentation; undefined without a marker. */
export function insertionEdit(
  insertion: MarkerInsertion,
  fileText: string,
): { path: string; old_string: string; new_string: string } | undefined {
  const markerLine = fileText.split('\n').find((line) => line.includes(insertion.marker));
  if (markerLine === undefined) return undefined;
  const indent = /^\s*/.exec(markerLine)?.[0] ?? '';
  const inserted = insertion.lines.map((line) => `${indent}${line}`).join('\n');
  return { path: insertion.path, old_string: markerLine, new_string: `${inserted}\n${markerLine}` };
}

function failures(results: CallResult[]): string[] {
  return results
    .filter((result) => result.isError)
    .map(
      (result) =>
        `${result.name} ${String(result.arguments.path ?? '')} failed: ${lastLines(result.content, 3)}`,
    );
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join('\n');
}

/** Bash that appends a session note to progress.md (quoted heredoc: nothing in the note is expanded). */
function appendProgressCommand(featureId: string, subject: string, notes: string[]): string {
  const body = [
    ``,
    `## ${featureId}: ${subject}`,
    ...notes.map((note) => `- ${note.replace(/\n/g, '\n  ')}`),
  ].join('\n');
  return `cat >> progress.md <<'PROGRESS_NOTE'\n${body}\nPROGRESS_NOTE\n`;
}
