// Loads the TypeScript entries of this install (cli/bin.ts, testkit/main.ts and a policy) from a bundle that esbuild makes on first
// use and remakes whenever one of its source files changed, so there is never a stale build to forget. Loading one
// file instead of ~400 through tsx's loader takes a third of the CPU; every worker, CLI command and test process
// starts that much sooner (docs/architecture.md, "Departures"). Where the bundle cannot be made (a read-only
// install, esbuild missing, NIGHTSHIFT_NO_BUNDLE=1), the entry runs through tsx as before.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE_DIR = path.join(ROOT, '.cache', 'entries');
/** Bumped when the way bundles are made changes, so old ones are remade. */
const FORMAT = 1;

/**
 * Imports each of `entries` (paths from the install's root, or absolute) and returns their modules in order: from
 * one bundle of them all when it is current (one bundle, so they share one copy of every module they both import),
 * else through tsx.
 */
export async function importEntries(entries) {
  const files = entries.map((entry) => path.resolve(ROOT, entry));
  const bundle = process.env.NIGHTSHIFT_NO_BUNDLE === '1' ? null : await currentBundle(files);
  if (bundle) {
    // Stack traces name the TypeScript sources, as they do under tsx.
    process.setSourceMapsEnabled(true);
    const loaded = await import(pathToFileURL(bundle).href);
    return files.map((_, index) => loaded[`entry${index}`]);
  }
  const { register } = await import('tsx/esm/api');
  register();
  const modules = [];
  for (const file of files) modules.push(await import(pathToFileURL(file).href));
  return modules;
}

/** The bundle of `files`, made now if it is missing or older than a source file; null when it cannot be made. */
async function currentBundle(files) {
  const key = files.map((file) => path.relative(ROOT, file)).join('+');
  const name =
    key.replace(/[^a-zA-Z0-9]+/g, '-').slice(-80) +
    `-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
  const file = path.join(CACHE_DIR, `${name}.mjs`);
  const stampFile = path.join(CACHE_DIR, `${name}.json`);
  if (isCurrent(stampFile)) return file;
  try {
    await build(files, file, stampFile);
    return file;
  } catch {
    return null;
  }
}

/** Whether the stamp names this format and every source it lists is unchanged since the build. */
function isCurrent(stampFile) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return false;
  }
  if (stamp.format !== FORMAT || !Array.isArray(stamp.inputs)) return false;
  for (const [input, mtimeMs] of stamp.inputs) {
    try {
      if (statSync(path.join(ROOT, input)).mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Bundles the entry with its sources inlined and every package left to Node. Each module's `import.meta.url` is
 * its source file's URL, so paths next to a source (prompts, the UI, package.json) resolve as under tsx. Written
 * under a temporary name and renamed, so processes starting at the same moment never read half a bundle.
 */
async function build(files, file, stampFile) {
  const esbuild = await import('esbuild');
  const contents = files
    .map((source, index) => `export * as entry${index} from ${JSON.stringify(source)};`)
    .join('\n');
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, sourcefile: 'entries.js', loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    write: false,
    outfile: file,
    absWorkingDir: ROOT,
    logLevel: 'silent',
    plugins: [sourceUrlPlugin()],
  });
  mkdirSync(CACHE_DIR, { recursive: true });
  const unique = `${process.pid}-${Date.now()}`;
  for (const output of result.outputFiles) {
    writeFileSync(`${output.path}.${unique}`, output.contents);
    renameSync(`${output.path}.${unique}`, output.path);
  }
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => input !== 'entries.js' && !input.startsWith('<'))
    .map((input) => [input, statSync(path.join(ROOT, input)).mtimeMs]);
  writeFileSync(`${stampFile}.${unique}`, JSON.stringify({ format: FORMAT, inputs }));
  renameSync(`${stampFile}.${unique}`, stampFile);
}

/** Replaces `import.meta.url` in each of the install's sources with that source's own file URL. */
function sourceUrlPlugin() {
  return {
    name: 'source-url',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const url = JSON.stringify(pathToFileURL(args.path).href);
        const loader = path.extname(args.path).replace('.', '').replace(/^m|^c/, '') || 'js';
        return { contents: source.replaceAll('import.meta.url', url), loader };
      });
    },
  };
}
