import path from 'node:path';
import { type AppStartFailure, FeatureId, VerdictRecord, WORKSPACE_FILES } from './formats.js';
import { readWorkspaceText, writeWorkspaceFile } from './safe-fs.js';

/** Workspace-relative path of a feature's feedback file: `.nightshift/feedback/F-003.md`. */
export function feedbackPath(featureId: string): string {
  return path.posix.join(WORKSPACE_FILES.feedbackDir, `${FeatureId.parse(featureId)}.md`);
}

const normalized = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The verdict's issues that say something its failing steps' evidence and its reason do not: evaluators often
 * report a failing step's observation again as an issue, and each text is shown once (as the dashboard does).
 */
export function issuesNotSaid(record: Pick<VerdictRecord, 'steps' | 'issues' | 'reason'>): string[] {
  const said = new Set(record.steps.filter((step) => !step.ok).map((step) => normalized(step.evidence)));
  if (record.reason) said.add(normalized(record.reason));
  return record.issues.filter((issue) => !said.has(normalized(issue)));
}

/** Renders an evaluator verdict as the markdown a generator reads: failing steps first, with their evidence. */
export function renderFeedback(input: VerdictRecord): string {
  const record = VerdictRecord.parse(input);
  const failing = record.steps.filter((s) => !s.ok);
  const passing = record.steps.filter((s) => s.ok);
  const lines = [
    `# Feedback for ${record.featureId}: ${record.verdict}`,
    '',
    `Evaluated in session ${record.session} of run ${record.runId} (${record.mode}) at ${record.at}.`,
  ];
  if (record.appStart) lines.push('', ...renderAppStartFailure(record.appStart));
  else if (record.reason) lines.push('', `Reason: ${record.reason}`);
  if (failing.length > 0) {
    lines.push('', '## Failing steps', '');
    for (const step of failing) lines.push(`- ✗ ${step.step}`, `  Evidence: ${oneLine(step.evidence)}`);
  }
  const issues = issuesNotSaid(record);
  if (issues.length > 0) {
    lines.push('', '## Issues', '');
    for (const issue of issues) lines.push(`- ${oneLine(issue)}`);
  }
  if (passing.length > 0) {
    lines.push('', '## Passing steps', '');
    for (const step of passing) lines.push(`- ✓ ${step.step}`);
  }
  if (record.evidence.length > 0) {
    lines.push('', '## Evidence files (data dir)', '');
    for (const file of record.evidence) lines.push(`- ${file}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the feature's feedback file from a verdict, replacing the previous one; returns its workspace-relative path. */
export async function writeFeedback(workspace: string, record: VerdictRecord): Promise<string> {
  const relative = feedbackPath(record.featureId);
  await writeWorkspaceFile(workspace, relative, renderFeedback(record));
  return relative;
}

/** Largest feedback file read (they are a few KB; the cap keeps a planted huge file out of a prompt). */
const MAX_FEEDBACK_BYTES = 256 * 1024;

/**
 * The feature's latest feedback text, or null when it has none. Read without following links; a file the
 * harness refuses (a link, a FIFO, too large) throws {@link UnsafeFileError}.
 */
export async function readFeedback(workspace: string, featureId: string): Promise<string | null> {
  return readWorkspaceText(workspace, feedbackPath(featureId), { maxBytes: MAX_FEEDBACK_BYTES });
}

/**
 * An app-start failure as a session reads it (the generator's feedback, the initializer's next brief): what the
 * harness ran, what happened, how to reproduce it, and the app log's last lines in a fence.
 */
export function renderAppStartFailure(
  failure: AppStartFailure,
  heading = '## The app did not start',
): string[] {
  const how =
    failure.exitCode === null
      ? 'init.sh did not exit, but nothing answered HTTP on $PORT before the readiness timeout.'
      : `init.sh exited with code ${failure.exitCode} before anything answered HTTP on $PORT.`;
  const fence = failure.logTail.some((line) => line.includes('```')) ? '~~~~' : '```';
  return [
    heading,
    '',
    `The harness ran \`PORT=<port> ./init.sh\` in a clean checkout of the last commit: ${how}`,
    'Fix init.sh (or the app it starts) first: nothing can be evaluated until the app answers HTTP on $PORT.',
    'Reproduce it the same way: start it in the background and curl the port, within one bash command.',
    '',
    `Last ${failure.logTail.length} lines of the app log:`,
    '',
    fence,
    ...(failure.logTail.length ? failure.logTail : ['(the app wrote nothing)']),
    fence,
  ];
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
