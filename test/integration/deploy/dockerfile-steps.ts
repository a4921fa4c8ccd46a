// Performs a Dockerfile's steps on this machine, without a Docker engine: each stage gets its own directory as its
// filesystem root, COPY takes files from the build context as Docker would (honouring .dockerignore, read with
// @balena/dockerignore, which implements Docker's matching rules), RUN runs in the stage's WORKDIR, ENV accumulates.
// RUN steps that install system packages are skipped: the host provides Node, Chromium, git and bubblewrap.
import { spawn } from 'node:child_process';
import { cp, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import dockerignore from '@balena/dockerignore';

// The package's types declare an ES default export; at run time it is `module.exports = factory`.
const ignore = dockerignore as unknown as typeof dockerignore.default;

/** One instruction, continuation lines joined. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Splits a Dockerfile into instructions (comments, blank lines and `\` continuations handled). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending === '') start = index + 1;
    if (line.startsWith('#')) return; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    const [keyword = '', ...rest] = full.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: start });
  });
  return instructions;
}

/** What performing the steps left: the final stage's working directory, environment and command. */
export interface ImageSteps {
  /** The final stage's WORKDIR on this machine. */
  workdir: string;
  /** ENV of the final stage. */
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  /** Steps not performed here, with why (e.g. apt-get: the host has those packages). */
  skipped: string[];
}

/** Options of performImageSteps. */
export interface PerformOptions {
  /** The build context (the repository). */
  context: string;
  /** An empty directory; stage `i` uses `<root>/stage-<i>` as its `/`. */
  root: string;
  /** Extra environment for RUN steps (e.g. npm's cache settings). */
  runEnv?: NodeJS.ProcessEnv;
  /** Receives each step as it starts. */
  onStep?: (description: string) => void;
}

interface StageState {
  name: string | null;
  root: string;
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
}

/** Performs every stage of `<context>/Dockerfile` in order. */
export async function performImageSteps(options: PerformOptions): Promise<ImageSteps> {
  const instructions = parseDockerfile(await readFile(path.join(options.context, 'Dockerfile'), 'utf8'));
  const ignored = await contextFilter(options.context);
  const stages: StageState[] = [];
  const skipped: string[] = [];
  for (const instruction of instructions) {
    const { keyword, args } = instruction;
    if (keyword === 'FROM') {
      const name = /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? null;
      const root = path.join(options.root, `stage-${stages.length}`);
      await mkdir(root, { recursive: true });
      stages.push({ name, root, workdir: '/', env: {}, entrypoint: [], cmd: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${instruction.line}: ${keyword} before FROM`);
    options.onStep?.(`${keyword} ${args}`);
    if (keyword === 'WORKDIR') {
      stage.workdir = path.posix.resolve(stage.workdir, args);
      await mkdir(here(stage), { recursive: true });
    } else if (keyword === 'ENV') Object.assign(stage.env, parseEnv(args));
    else if (keyword === 'COPY') await copyStep(args, stage, stages, options.context, ignored);
    else if (keyword === 'RUN') {
      if (/\bapt-get\b/.test(args)) skipped.push(`RUN ${args} (system packages: the host has them)`);
      else await run(args, here(stage), { ...process.env, ...options.runEnv, ...stage.env });
    } else if (keyword === 'ENTRYPOINT') stage.entrypoint = JSON.parse(args) as string[];
    else if (keyword === 'CMD') stage.cmd = JSON.parse(args) as string[];
    else if (keyword === 'VOLUME' || keyword === 'EXPOSE' || keyword === 'LABEL') continue;
    else throw new Error(`Dockerfile line ${instruction.line}: ${keyword} is not supported by this test`);
  }
  const final = stages.at(-1);
  if (!final) throw new Error('the Dockerfile has no FROM');
  return { workdir: here(final), env: final.env, entrypoint: final.entrypoint, cmd: final.cmd, skipped };
}

function here(stage: StageState): string {
  return path.join(stage.root, stage.workdir);
}

/** `KEY=value KEY2=value2` (values may be double-quoted). */
function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = match[2] ?? '';
    env[match[1]!] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return env;
}

/** True for context paths (relative, `/`-separated) that .dockerignore keeps out. */
async function contextFilter(context: string): Promise<(relative: string) => boolean> {
  const text = await readFile(path.join(context, '.dockerignore'), 'utf8').catch(() => '');
  const matcher = ignore().add(text.split('\n'));
  return (relative) => matcher.ignores(relative);
}

async function copyStep(
  args: string,
  stage: StageState,
  stages: readonly StageState[],
  context: string,
  ignored: (relative: string) => boolean,
): Promise<void> {
  const words = args.split(/\s+/);
  const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  const dest = words.pop();
  if (!dest || words.length === 0) throw new Error(`COPY ${args}: expected sources and a destination`);
  const target = path.join(stage.root, path.posix.resolve(stage.workdir, dest));
  if (from !== undefined) {
    const source = stages.find((s, index) => s.name === from || String(index) === from);
    if (!source) throw new Error(`COPY --from=${from}: no such stage`);
    for (const word of words) await cp(path.join(source.root, word), target, { recursive: true });
    return;
  }
  for (const word of words) {
    const relative = path.posix.normalize(word).replace(/^\.\/?/, '');
    // A directory source copies its contents into the destination; a file source lands in it by its name.
    const base = (await stat(path.join(context, relative))).isDirectory()
      ? relative
      : path.posix.dirname(relative);
    for (const file of await contextFiles(context, relative, ignored)) {
      await cp(path.join(context, file), path.join(target, path.posix.relative(base, file)));
    }
  }
}

/** Every file under `relative` (a file or a directory of the context) that .dockerignore does not exclude. */
async function contextFiles(
  context: string,
  relative: string,
  ignored: (relative: string) => boolean,
): Promise<string[]> {
  if (relative !== '' && ignored(relative)) return [];
  const info = await stat(path.join(context, relative));
  if (!info.isDirectory()) return [relative];
  const files: string[] = [];
  for (const entry of await readdir(path.join(context, relative))) {
    files.push(...(await contextFiles(context, relative ? `${relative}/${entry}` : entry, ignored)));
  }
  return files;
}

function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`RUN ${command} exited ${code} in ${cwd}:\n${output}`)),
    );
  });
}
