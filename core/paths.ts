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
