import os from 'node:os';
import path from 'node:path';

/** The data dir: transcripts, evidence, worker clones, embedded Redis data. `$NIGHTSHIFT_HOME`, default `~/.nightshift`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.NIGHTSHIFT_HOME ?? path.join(os.homedir(), '.nightshift'));
}

/** Where the files of one run live inside the data dir. */
export function runDataDir(home: string, runId: string): string {
  return path.join(home, 'runs', runId);
}

/** The JSONL transcript of one session (`<data>/runs/<run>/sessions/<seq>.jsonl`); the dashboard reads it. */
export function sessionTranscriptPath(home: string, runId: string, seq: number): string {
  return path.join(runDataDir(home, runId), 'sessions', `${seq}.jsonl`);
}

/** Screenshots and the Playwright trace of one evaluation (`<data>/runs/<run>/evidence/<seq>/`). */
export function sessionEvidenceDir(home: string, runId: string, seq: number): string {
  return path.join(runDataDir(home, runId), 'evidence', String(seq));
}

/** Output of the app under test during one evaluation. */
export function sessionAppLogPath(home: string, runId: string, seq: number): string {
  return path.join(runDataDir(home, runId), 'sessions', `${seq}-app.log`);
}

/** The mirror of a workspace's repository, refreshed before each session, to rebuild a destroyed `.git`. */
export function repoBackupDir(home: string, runId: string): string {
  return path.join(runDataDir(home, runId), 'backup.git');
}

/** Where the files of one planner session live (`<data>/plans/<plan>/`): transcript, spec, record. */
export function planDataDir(home: string, planId: string): string {
  return path.join(home, 'plans', planId);
}

/** The JSONL transcript of one planner session. */
export function planTranscriptPath(home: string, planId: string): string {
  return path.join(planDataDir(home, planId), 'transcript.jsonl');
}

/** The workspace of a run started without one (`<data>/workspaces/<run>`). */
export function defaultWorkspaceDir(home: string, runId: string): string {
  return path.join(home, 'workspaces', runId);
}
