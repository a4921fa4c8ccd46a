import { createHash } from 'node:crypto';
import fs from 'node:fs';
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
export function repoBackupDir(home: string, runId: string, lane?: number): string {
  return path.join(runDataDir(home, runId), lane ? `backup-lane-${lane}.git` : 'backup.git');
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

/**
 * The known-good record of a workspace's `.git` (handoff/git-guard.ts): one per run and workspace directory,
 * named after the workspace's real path (a worker's clone of a remote run has its own).
 */
export function gitRecordPath(home: string, runId: string, workspace: string): string {
  let real: string;
  try {
    real = fs.realpathSync.native(workspace);
  } catch {
    // Not created yet (a clone about to be made): its parent's real path and its name.
    let parent = path.dirname(path.resolve(workspace));
    try {
      parent = fs.realpathSync.native(parent);
    } catch {
      // Neither exists yet.
    }
    real = path.join(parent, path.basename(workspace));
  }
  const name = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(runDataDir(home, runId), 'git-known-good', `${name}.json`);
}

/** The last replay of each feature's recorded check and failure screenshots (`<data>/runs/<run>/checks/`). */
export function checkReplaysDir(home: string, runId: string): string {
  return path.join(runDataDir(home, runId), 'checks');
}

/**
 * The credentials of remotes given with `--repo https://user:token@…` (handoff/remote-credentials.ts), kept out of
 * the run record: `<data>/credentials/git.json`, mode 0600.
 */
export function gitCredentialsFile(home: string): string {
  return path.join(home, 'credentials', 'git.json');
}

/** True when `child` is `parent` or inside it. */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
