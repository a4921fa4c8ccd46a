import type { Feature } from '../handoff/formats.js';
import { contractText, type SprintContract, sprintContract } from './contract.js';

/** Pieces of workspace state the harness gathers so the model spends no turns on orientation. */
export interface WorkspaceSnapshot {
  /** Tracked files, one per line (capped). */
  files: string[];
  /** `git log --oneline` of the last commits, newest first. */
  gitLog: string;
  /** The tail of `progress.md`. */
  progressTail: string;
}

/** The brief's heading over what people wrote about the feature (generator and evaluator alike). */
export const NOTES_TITLE = 'Notes from a person about this feature';
/** The brief's heading over the answers to questions asked about the feature (`ask_human`). */
export const ANSWERS_TITLE = 'Answers to the questions asked about this feature (follow them)';

function section(title: string, body: string): string {
  return `## ${title}\n${body.trim() || '(none)'}`;
}

function numberedSteps(steps: readonly string[]): string {
  return steps.map((step, index) => `${index + 1}. ${step}`).join('\n');
}

function fileList(files: readonly string[], max = 80): string {
  const shown = files.slice(0, max).join('\n');
  return files.length > max ? `${shown}\n… and ${files.length - max} more` : shown;
}

/** The initializer's first message: the spec text verbatim and the rules for the feature list. */
export function initializerMessage(input: {
  specName: string;
  specText: string;
  featureCount?: { min?: number; max?: number };
  /** Why the app did not start after the last initializer session (`.nightshift/app-start.md`). */
  appStartNote?: string;
}): string {
  const range = input.featureCount;
  const count =
    range?.min !== undefined || range?.max !== undefined
      ? `Aim for ${range?.min ?? 1}–${range?.max ?? 'any number of'} features.`
      : 'Aim for as many features as the spec needs, each small enough for one session.';
  const parts = [
    `# Spec (${input.specName})`,
    input.specText.trim(),
    section(
      'Your output',
      `${count}\nWrite feature_list.json, init.sh, progress.md and a skeleton app, then commit.`,
    ),
  ];
  if (input.appStartNote) {
    parts.push(
      section(
        'The app did not start after the last initializer session (fix this first)',
        `The work of that session is committed (feature_list.json, init.sh, the skeleton): keep what is right. The harness starts the app with \`PORT=<port> ./init.sh\` after you stop, and the run cannot go on until it answers HTTP there. Check it yourself before you stop: start it in the background and curl the port within one bash command.\n\n${input.appStartNote}`,
      ),
    );
  }
  return parts.join('\n\n');
}

/** The generator's first message: the feature (id and description verbatim), feedback, progress, git log. */
export function generatorMessage(input: {
  feature: Feature;
  feedback: string | null;
  /** What a person wrote about the feature (roles/human-notes.ts), already rendered. */
  humanNotes?: string | null;
  snapshot: WorkspaceSnapshot;
  remainingFailing: number;
  /** A port free for the session's own start of the app (the box's loopback is its own; unboxed, it was free). */
  appPort?: number;
  /** The part of the spec the feature most likely comes from (roles/spec-section.ts). */
  specSection?: { file: string; heading: string; line: number; excerpt: string };
  /** What the evaluator will check (roles/contract.ts); without it, the feature's steps. */
  contract?: SprintContract;
  /** A person's answers to the questions asked about this feature (`ask_human`), as text. */
  answers?: string;
}): string {
  const { feature, snapshot } = input;
  const contract = input.contract ?? sprintContract(feature, null);
  const parts = [
    `# Feature ${feature.id}: ${feature.description}`,
    `Category: ${feature.category}. ${input.remainingFailing} feature(s) still failing in total; work on this one only.`,
    section('What the evaluator will check (your contract)', contractText(contract)),
  ];
  if (input.humanNotes) parts.push(section(NOTES_TITLE, input.humanNotes));
  if (input.specSection) parts.push(specSectionText(input.specSection));
  if (input.answers) parts.push(section(ANSWERS_TITLE, input.answers));
  if (input.feedback)
    parts.push(section('Evaluator feedback from the last attempt (fix this)', input.feedback));
  parts.push(
    section('Recent progress notes (progress.md)', snapshot.progressTail),
    section('Recent commits', snapshot.gitLog),
    section('Files in the workspace', fileList(snapshot.files)),
    section('Running the app', runningTheApp(input.appPort)),
  );
  return parts.join('\n\n');
}

function specSectionText(spec: { file: string; heading: string; line: number; excerpt: string }): string {
  return section(
    `Where this feature comes from in the spec (${spec.file}, best guess)`,
    `Section "${spec.heading}" (line ${spec.line}); read the whole section for details the steps leave out:\n\n${spec.excerpt}`,
  );
}

/** How the generator starts and checks the app inside one bash command (its processes die when it returns). */
function runningTheApp(port: number | undefined): string {
  if (port === undefined)
    return 'Start it with `PORT=<port> ./init.sh` (it must listen on $PORT). Stop what you start.';
  const log = `/tmp/app-${port}.log`;
  return [
    `Use port ${port} for your own checks. The harness starts the app the same way for the evaluator — \`PORT=<port> ./init.sh\` in a clean checkout of your last commit (no untracked files, no node_modules) — and it must answer HTTP on $PORT.`,
    'Every process a bash command starts is killed when the command returns, so start the app in the background, wait for it (or for init.sh to fail) and check it within one command, e.g.:',
    '```',
    `PORT=${port} ./init.sh > ${log} 2>&1 & pid=$!; code=; for i in $(seq 1 120); do curl -s -o /dev/null http://127.0.0.1:${port}/ && break; if [ -z "$code" ] && ! kill -0 $pid 2>/dev/null; then wait $pid; code=$?; [ "$code" != 0 ] && echo "init.sh exited with code $code" && break; fi; sleep 1; done; curl -s http://127.0.0.1:${port}/ | head -c 2000; echo; tail -n 20 ${log}`,
    '```',
    'Give that command a `timeout_ms` long enough for a first dependency install.',
  ].join('\n');
}

/** The evaluator's first message: the app URL and, for each feature, its id, description and steps. */
export function evaluatorMessage(input: {
  appUrl: string;
  features: readonly Feature[];
  mode: 'evaluate' | 'regression';
  /** Features whose recorded check failed its replay, and how (regression checks). */
  failures?: ReadonlyMap<string, string>;
  /** What a person said about a feature (notes, answers to questions), as `[title, text]` sections after its steps. */
  asides?: ReadonlyMap<string, ReadonlyArray<readonly [string, string]>>;
}): string {
  const intro =
    input.mode === 'regression'
      ? `Regression check: these features passed before; verify each one still works. Submit one verdict per feature.`
      : `Check this feature. Submit one verdict.`;
  const features = input.features.map((feature) => {
    const failure = input.failures?.get(feature.id);
    const replay = failure
      ? [
          `Its ${failure}. Decide whether the feature is broken (fail, naming what is wrong) or still works with a changed page (pass: the check is recorded again from what you do).`,
        ]
      : [];
    // Sub-headings without the id: a reader splitting the brief by feature headings keeps one section per feature.
    const asides = (input.asides?.get(feature.id) ?? []).map(
      ([title, text]) => `\n### ${title}\n${text.trim()}`,
    );
    return [
      `## ${feature.id}: ${feature.description}`,
      ...replay,
      'Steps:',
      numberedSteps(feature.steps),
      ...asides,
    ].join('\n');
  });
  return [`# Evaluate the app at ${input.appUrl}`, intro, ...features].join('\n\n');
}
