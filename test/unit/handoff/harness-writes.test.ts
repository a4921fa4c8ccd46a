/**
 * Issue 24: every harness write into a workspace, a clone or the backup mirror goes through handoff/safe-fs.ts (no
 * link followed at any path component). This test reads the source and fails when a module writes with raw `fs`
 * anywhere not listed below; each entry says why that write can never land in a workspace. A new raw write must
 * either go through safe-fs (workspaceDir-relative helpers: writeWorkspaceFile, appendWorkspaceFile,
 * makeWorkspaceDir, removeWorkspacePath, makeWorkspaceLink…) or come here with its reason; an entry whose write is
 * gone fails too, so the list stays true.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RawWrite, rawWritesIn, sourceFiles } from './fs-write-scan.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** The harness's code (the browser bundle has no fs; tests and benchmarks are not the harness). */
const FOLDERS = [
  'agent',
  'box',
  'checks',
  'cli',
  'core',
  'dashboard',
  'evaluation',
  'handoff',
  'orchestrator',
  'roles',
  'workers',
  'testkit',
];
// checks/exported/ is the module the exported suite imports: it runs under the operator's `npx playwright test`, not
// in the harness (its writes are the suite's own lock files under os.tmpdir()).
const SKIP = ['dashboard/ui/', 'checks/exported/'];

/** The one module allowed raw writes below a workspace root: each of its writes walks the path first. */
const SAFE_FS = ['handoff/safe-fs.ts', 'handoff/safe-fs-walk.ts'];

interface Allowed {
  file: string;
  /** The nearest named function around the write (what the scan reports). */
  fn: string;
  apis: string[];
  /** Why it cannot write into a workspace, a clone or the mirror. */
  why: string;
}

const DATA_DIR =
  'a path of the data dir built by core/paths.ts from the run id and session number, never from workspace text';
const TEMP =
  "a fresh directory of the harness's own under os.tmpdir() (mkdtemp), not reachable from a workspace";

const ALLOWED: Allowed[] = [
  // The box's own scratch space and kernel files.
  {
    file: 'box/box.ts',
    fn: 'bridges',
    apis: ['mkdirSync'],
    why: `the bridges' socket directories in ${TEMP}`,
  },
  { file: 'box/box.ts', fn: 'prepareBox', apis: ['mkdtempSync', 'mkdirSync'], why: TEMP },
  { file: 'box/box.ts', fn: 'dispose', apis: ['rmdirSync', 'rmSync'], why: `removes ${TEMP}` },
  {
    file: 'box/run.ts',
    fn: 'prepareLaunch',
    apis: ['mkdtempSync', 'mkdirSync'],
    why: `a command's private HOME/TMPDIR: ${TEMP}`,
  },
  { file: 'box/run.ts', fn: 'dispose', apis: ['rmSync'], why: `removes ${TEMP}` },
  {
    file: 'box/cgroup.ts',
    fn: 'tryCreate',
    apis: ['mkdirSync', 'writeFileSync', 'rmdirSync'],
    why: 'a pids or memory cgroup under /sys/fs/cgroup (kernel files)',
  },
  {
    file: 'box/cgroup.ts',
    fn: 'baseFor',
    apis: ['rmdirSync'],
    why: 'the probe cgroup made by tryCreate under /sys/fs/cgroup',
  },
  {
    file: 'box/cgroup.ts',
    fn: 'destroyCommandCgroup',
    apis: ['rmdirSync'],
    why: 'the cgroup made above',
  },
  {
    file: 'box/relay.mjs',
    fn: 'listenUnix',
    apis: ['rmSync'],
    why: "runs inside the box: its socket in the box's own directory (the box's writes are the box's)",
  },
  // The model's own file tools: confined by agent/tools/paths.ts (the path checked is the path used, O_NOFOLLOW).
  {
    file: 'agent/tools/write.ts',
    fn: 'writeResolvedFile',
    apis: ['mkdirSync', 'openSync', 'writeFileSync'],
    why: "the model's write/edit tool, not a harness write: the target is resolved and confined by agent/tools/paths.ts, the parent re-checked, opened O_NOFOLLOW",
  },
  {
    file: 'agent/tools/browser-upload.ts',
    fn: 'readUploadFile',
    apis: ['open'],
    why: 'opens O_RDONLY | O_NOFOLLOW: a read',
  },
  // The data dir's own files.
  {
    file: 'agent/tools/browser.ts',
    fn: 'execute',
    apis: ['writeFile'],
    why: `a screenshot in the session's evidence dir: ${DATA_DIR}`,
  },
  { file: 'agent/transcript.ts', fn: 'TranscriptWriter.constructor', apis: ['mkdirSync'], why: DATA_DIR },
  { file: 'agent/transcript.ts', fn: 'TranscriptWriter.write', apis: ['appendFileSync'], why: DATA_DIR },
  {
    file: 'checks/replay.ts',
    fn: 'screenshot',
    apis: ['mkdir', 'writeFile'],
    why: `a failed replay's screenshot in the run's checks dir: ${DATA_DIR}`,
  },
  {
    file: 'checks/store.ts',
    fn: 'saveReplays',
    apis: ['mkdir', 'writeFile', 'rename', 'rm'],
    why: `each feature's last replay, in the run's checks dir (core/paths.ts) under its feature id, checked as F-<digits> before (ReplayRecord) and encoded; no other part of the path comes from workspace text; a failed write's own temporary file removed`,
  },
  {
    file: 'checks/store.ts',
    fn: 'removeStaleTemporaries',
    apis: ['rm'],
    why: `temporary files a killed save left in the run's checks dir (core/paths.ts), listed there, regular files only (lstat); ${DATA_DIR}`,
  },
  {
    file: 'cli/demo.ts',
    fn: 'demoSpec',
    apis: ['mkdirSync', 'writeFileSync'],
    why: `the demo's spec: ${DATA_DIR}`,
  },
  {
    file: 'cli/doctor.ts',
    fn: 'checkDataDir',
    apis: ['mkdirSync', 'writeFileSync', 'rmSync'],
    why: 'a probe file in the data dir itself',
  },
  {
    file: 'cli/embedded-redis.ts',
    fn: 'ensureEmbeddedRedis',
    apis: ['mkdirSync', 'rmSync'],
    why: `the embedded Redis's files: ${DATA_DIR}`,
  },
  {
    file: 'cli/embedded-redis.ts',
    fn: 'takeLock',
    apis: ['writeFileSync', 'rmSync'],
    why: 'its lock file (created exclusively) in the data dir',
  },
  {
    file: 'cli/embedded-redis.ts',
    fn: 'startEmbeddedRedis',
    apis: ['rmSync', 'writeFileSync'],
    why: 'its pid and port files in the data dir',
  },
  {
    file: 'cli/embedded-redis.ts',
    fn: 'stopEmbeddedRedis',
    apis: ['rmSync'],
    why: 'its port file in the data dir',
  },
  {
    file: 'cli/processes.ts',
    fn: 'spawnChild',
    apis: ['mkdirSync', 'createWriteStream'],
    why: "a child command's log in the data dir's logs",
  },
  {
    file: 'core/log.ts',
    fn: 'logToFile',
    apis: ['mkdirSync'],
    why: "the log file's directory in the data dir",
  },
  {
    file: 'handoff/app-runner.ts',
    fn: 'logWriter',
    apis: ['createWriteStream'],
    why: `the app's log: ${DATA_DIR}`,
  },
  {
    file: 'handoff/app-copy.ts',
    fn: 'freshAppCopy',
    apis: ['rm', 'mkdir', 'writeFile'],
    why: `the app copy's own directory in the data dir (${DATA_DIR}); rm works on the names it walks, a link inside the copy is removed, never followed; writeFile: the copy's objects/info/alternates, in the .git that git init has just made, before any file of the workspace is checked out there`,
  },
  { file: 'handoff/app-copy.ts', fn: 'remove', apis: ['rm'], why: 'removes that app copy (same)' },
  {
    file: 'handoff/app-deps.ts',
    fn: 'fillDependencies',
    apis: ['cp', 'rm'],
    why: `node_modules of a fresh app copy (${DATA_DIR}), made only where the checkout has none (lstat: not even a link), copied from the run's dependency cache with links kept as links; removed again if the copy fails`,
  },
  {
    file: 'handoff/app-deps.ts',
    fn: 'captureDependencies',
    apis: ['mkdir', 'mkdtemp', 'rename', 'rm'],
    why: `the run's dependency cache (${DATA_DIR}, hidden from every box); what it moves there is an app copy's node_modules, checked with lstat (a real directory, no special files) after the app's box has stopped`,
  },
  {
    file: 'handoff/app-deps.ts',
    fn: 'evictOldKeys',
    apis: ['rm'],
    why: "removes the oldest keys of the run's dependency cache (same)",
  },
  {
    file: 'handoff/git-guard.ts',
    fn: 'saveRecord',
    apis: ['mkdir', 'writeFile', 'rename'],
    why: `the known-good record of a .git: ${DATA_DIR}`,
  },
  {
    file: 'handoff/remote-credentials.ts',
    fn: 'saveRemoteCredential',
    apis: ['mkdir', 'chmod', 'writeFile', 'rename'],
    why: `credentials/git.json (0600) in the data dir: ${DATA_DIR}`,
  },
  {
    file: 'handoff/git-history.ts',
    fn: 'backupRepo',
    apis: ['mkdir'],
    why: "the backup mirror's parent in the data dir (the mirror's own file goes through safe-fs)",
  },
  {
    file: 'handoff/git-remote.ts',
    fn: 'cloneOrFetch',
    apis: ['mkdir'],
    why: "a worker clone's parent in the data dir",
  },
  {
    file: 'orchestrator/start-run.ts',
    fn: 'prepareRemote',
    apis: ['mkdir'],
    why: "the first clone's parent in the data dir",
  },
  {
    file: 'orchestrator/planning.ts',
    fn: 'startPlannedRun',
    apis: ['writeFile'],
    why: `the accepted spec beside its plan: ${DATA_DIR}`,
  },
  {
    file: 'roles/planner.ts',
    fn: 'runPlanner',
    apis: ['mkdir', 'writeFile'],
    why: `the plan's record and spec: ${DATA_DIR}`,
  },
  {
    file: 'roles/feature-writer.ts',
    fn: 'runFeatureWriter',
    apis: ['mkdir'],
    why: `the writer's transcript directory: ${DATA_DIR}`,
  },
  {
    file: 'evaluation/fresh-app.ts',
    fn: 'startFreshApp',
    apis: ['mkdir'],
    why: `the app log's directory: ${DATA_DIR}`,
  },
  {
    file: 'workers/browser-pool.ts',
    fn: 'startEvaluation',
    apis: ['mkdir'],
    why: `the evaluation's evidence dir: ${DATA_DIR}`,
  },
  // Other places of the harness's own.
  {
    file: 'handoff/git-env.ts',
    fn: 'emptyGitHome',
    apis: ['mkdtempSync', 'chmodSync'],
    why: `harness git's empty HOME: ${TEMP}`,
  },
  {
    file: 'dashboard/ui-bundle.ts',
    fn: 'buildUi',
    apis: ['rename', 'rm'],
    why: "the dashboard's built UI in the install directory",
  },
  // Workspace roots: the directory the operator named (or the data dir's default), made before anything is in it.
  {
    file: 'handoff/workspace.ts',
    fn: 'createWorkspace',
    apis: ['mkdir'],
    why: "the workspace root itself, the operator's path (what is inside it is written through safe-fs)",
  },
  {
    file: 'handoff/git.ts',
    fn: 'ensureRepo',
    apis: ['mkdir'],
    why: 'the repository root itself, a path the harness or the operator chose',
  },
  // Paths the operator names on the command line.
  {
    file: 'cli/init.ts',
    fn: 'registerInitCommand',
    apis: ['mkdirSync', 'writeFileSync'],
    why: "nightshift.config.json in the operator's directory, created exclusively ('wx': an existing name or link refuses)",
  },
  {
    file: 'cli/plan.ts',
    fn: 'registerPlanCommand',
    apis: ['writeFile'],
    why: 'the file the operator names with --out',
  },
  // Test fixtures and the demo's scripted model: what a model would write, not the harness.
  {
    file: 'testkit/policies/todo-assemble.ts',
    fn: 'assembleTodoApp',
    apis: ['mkdir', 'writeFile', 'chmod'],
    why: 'assembles the example app into a fixture directory for tests and benchmarks (never a run)',
  },
  {
    file: 'testkit/policies/meal-planner/assemble.ts',
    fn: 'assembleMealPlannerApp',
    apis: ['mkdir', 'writeFile', 'chmod'],
    why: 'assembles the example app into a fixture directory for tests and benchmarks (never a run)',
  },
  {
    file: 'testkit/policies/grounding-family.ts',
    fn: 'plantPageError',
    apis: ['appendFile'],
    why: 'plants a page error in an app the bench assembled into its own fixture directory (never a run)',
  },
  {
    file: 'orchestrator/housekeeping.ts',
    fn: 'removeTree',
    apis: ['rm'],
    why: `removes a whole directory of the data dir (a finished run's clone, app copy or records), its path built from the data dir and the run id; rm unlinks links inside, never follows them`,
  },
  {
    file: 'orchestrator/housekeeping.ts',
    fn: 'removeAtOnce',
    apis: ['mkdir', 'rename', 'rm'],
    why: `moves a finished run's clone (a real directory under <data>/clones, never a link) into <data>/housekeeping/removing and removes it there; rm unlinks links inside, never follows them`,
  },
  {
    file: 'orchestrator/housekeeping.ts',
    fn: 'tidyFinishedClones',
    apis: ['rm'],
    why: 'removes <data>/housekeeping/removing, what a crash left of clones being removed (a path of the data dir alone)',
  },
  { file: 'testkit/app-registry.ts', fn: 'startAppRegistry', apis: ['mkdtemp', 'writeFile'], why: TEMP },
  { file: 'testkit/app-registry.ts', fn: 'stop', apis: ['rm'], why: `removes ${TEMP}` },
  {
    file: 'handoff/merge-rules.ts',
    fn: 'mergeAddedLines',
    apis: ['mkdtemp', 'writeFile', 'rm'],
    why: `the three sides of a conflicted file for git merge-file, in a fresh ${TEMP}`,
  },
  {
    file: 'workers/full-sweep.ts',
    fn: 'bisect',
    apis: ['rm', 'mkdir'],
    why: "the bisect's own clone under the worker's data dir (<data>/bisect/<worker>/<run>), made by the harness",
  },
];

const key = (write: Pick<RawWrite, 'file' | 'fn' | 'api'>) => `${write.file} › ${write.fn} › ${write.api}`;

function scanHarness(): RawWrite[] {
  return sourceFiles(ROOT, FOLDERS, SKIP).flatMap((file) =>
    rawWritesIn(file, fs.readFileSync(path.join(ROOT, file), 'utf8')),
  );
}

describe('harness writes go through safe-fs', () => {
  const writes = scanHarness();
  const allowed = new Set(ALLOWED.flatMap((entry) => entry.apis.map((api) => key({ ...entry, api }))));

  it('no module outside safe-fs writes with raw fs, except the listed writes that cannot reach a workspace', () => {
    const unlisted = writes
      .filter((write) => !SAFE_FS.includes(write.file) && !allowed.has(key(write)))
      .map((write) => `${write.file}:${write.line} ${write.fn} › ${write.api}`);
    expect(
      unlisted,
      'route these through handoff/safe-fs.ts, or list them in ALLOWED with why they can never reach a workspace',
    ).toEqual([]);
  });

  it('every listed write still exists (the list stays true)', () => {
    const found = new Set(writes.map(key));
    expect([...allowed].filter((entry) => !found.has(entry))).toEqual([]);
  });

  it('the scan finds raw writes however fs is imported', () => {
    const source = [
      "import fs, { promises } from 'node:fs';",
      "import * as fsp from 'node:fs/promises';",
      "import { writeFile as put, open, readFile } from 'node:fs/promises';",
      'export async function plant(ws: string) {',
      "  await put(ws + '/a', 'x');",
      "  fs.mkdirSync(ws + '/b');",
      "  await fs.promises.rm(ws + '/c', { recursive: true });",
      "  await fsp.symlink('/etc/passwd', ws + '/d');",
      "  await open(ws + '/e', 'w');",
      "  await open(ws + '/f', 'r');",
      "  await readFile(ws + '/g');",
      '}',
      'const later = () => fs.createWriteStream("x");',
    ].join('\n');
    expect(rawWritesIn('x.ts', source).map((write) => `${write.fn} ${write.api}`)).toEqual([
      'plant writeFile',
      'plant mkdirSync',
      'plant rm',
      'plant symlink',
      'plant open',
      'later createWriteStream',
    ]);
    // And it reads the real tree: the safe module's own writes are among what it finds.
    expect(writes.filter((write) => SAFE_FS.includes(write.file)).length).toBeGreaterThan(4);
  });
});
