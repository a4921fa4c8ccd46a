import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The house rules of docs/architecture.md, checked over the source tree. NIGHTSHIFT_HOUSE_ROOT points the checks at
// another checkout (to see them fail on a tree that breaks the rules).
const ROOT =
  process.env.NIGHTSHIFT_HOUSE_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Top-level folders from the top layer down: a file may import only from its own layer or the ones below. */
const LAYERS = [
  'cli',
  'dashboard',
  'workers',
  'orchestrator',
  'roles',
  'evaluation',
  'checks',
  'handoff',
  'agent',
  'box',
  'core',
];
const MAX_FILE_LINES = 400;
/** Files allowed over the limit, relative to the root (none since issue 27's split; keep it that way). */
const OVER_LIMIT_ALLOWED = new Set<string>([]);
/** Paths (relative to the root) that hold no source of the house: tests, dependencies, the browser bundle. */
const NOT_SOURCE = new Set(['test', 'node_modules', 'dashboard/ui', 'dist']);

interface SourceImport {
  /** The imported file, resolved to a path relative to the root. */
  target: string;
  /** Loaded when the importer is: a static import or re-export that is not `import type`/`export type`. */
  eager: boolean;
}

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.name.startsWith('.') || NOT_SOURCE.has(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(child);
    }
  };
  walk('');
  return files.sort();
}

function resolveImport(root: string, importer: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.posix.join(path.posix.dirname(importer), specifier).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}/index.ts`]) {
    if (fs.existsSync(path.join(root, candidate))) return candidate;
  }
  return null;
}

/** The relative imports of one file: static ones (type-only ones are not eager) and dynamic `import()` calls. */
function importsOf(root: string, file: string, text: string): SourceImport[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const found: SourceImport[] = [];
  const add = (specifier: ts.Node | undefined, eager: boolean) => {
    if (!specifier || !ts.isStringLiteral(specifier)) return;
    const target = resolveImport(root, file, specifier.text);
    if (target) found.push({ target, eager });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, !node.importClause?.isTypeOnly);
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, !node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Strongly connected groups of more than one file (or a file importing itself) in the eager import graph. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string) => {
    order.set(file, counter);
    lowest.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        connect(next);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(next) as number));
      } else if (onStack.has(next)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(next) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) connect(file);
  return cycles;
}

function layerOf(file: string): number {
  return LAYERS.indexOf(file.split('/')[0] as string);
}

/** `importer -> target` for every import from a layer to one above it (folders outside the layers are free). */
function upwardImports(imports: Map<string, SourceImport[]>): string[] {
  const upward: string[] = [];
  for (const [importer, found] of imports) {
    const from = layerOf(importer);
    if (from < 0) continue;
    for (const { target } of found) {
      const to = layerOf(target);
      if (to >= 0 && to < from) upward.push(`${importer} -> ${target}`);
    }
  }
  return upward;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function readTree(root: string) {
  const texts = new Map(
    sourceFiles(root).map((file) => [file, fs.readFileSync(path.join(root, file), 'utf8')]),
  );
  const imports = new Map([...texts].map(([file, text]) => [file, importsOf(root, file, text)]));
  const eagerGraph = new Map(
    [...imports].map(([file, found]) => [
      file,
      found.filter((entry) => entry.eager).map((entry) => entry.target),
    ]),
  );
  return { texts, imports, eagerGraph };
}

describe('the checks themselves', () => {
  it('find a cycle of three files and a self-import, and nothing in a chain', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', []],
      ['f.ts', ['f.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['f.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('see an import pointing up and let imports point down or sideways', () => {
    const imports = new Map<string, SourceImport[]>([
      ['core/log.ts', [{ target: 'agent/cost.ts', eager: false }]],
      ['cli/run.ts', [{ target: 'core/log.ts', eager: true }]],
      ['bench/main.ts', [{ target: 'cli/run.ts', eager: true }]],
      ['roles/a.ts', [{ target: 'roles/b.ts', eager: true }]],
    ]);
    expect(upwardImports(imports)).toEqual(['core/log.ts -> agent/cost.ts']);
  });

  it('tell a type-only import from a value import and skip packages', () => {
    const found = importsOf(
      ROOT,
      'orchestrator/example.ts',
      [
        "import type { NightshiftError } from '../core/errors.js';",
        "import { moduleLogger } from '../core/log.js';",
        "export { dataDir } from '../core/paths.js';",
        "const later = await import('../core/retry.js');",
        "import { z } from 'zod';",
      ].join('\n'),
    );
    expect(found).toEqual([
      { target: 'core/errors.ts', eager: false },
      { target: 'core/log.ts', eager: true },
      { target: 'core/paths.ts', eager: true },
      { target: 'core/retry.ts', eager: false },
    ]);
  });
});

describe('the house', () => {
  const { texts, imports, eagerGraph } = readTree(ROOT);

  it('reads the source tree', () => {
    expect(texts.size).toBeGreaterThan(100);
    expect(texts.has('orchestrator/advance.ts')).toBe(true);
    expect(
      [...texts.keys()].some((file) => file.startsWith('test/') || file.startsWith('dashboard/ui/')),
    ).toBe(false);
    expect([...eagerGraph.values()].flat().length).toBeGreaterThan(texts.size);
  });

  it('has no import cycle between source files', () => {
    expect(importCycles(eagerGraph)).toEqual([]);
  });

  it('has no import pointing up the layers', () => {
    expect(upwardImports(imports)).toEqual([]);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines but the ones being split`, () => {
    const over = [...texts]
      .filter(([file, text]) => lineCount(text) > MAX_FILE_LINES && !OVER_LIMIT_ALLOWED.has(file))
      .map(([file, text]) => `${file}: ${lineCount(text)} lines`);
    expect(over).toEqual([]);
  });

  it('allows only files that are still over the limit (take a split file off the list)', () => {
    const stale = [...OVER_LIMIT_ALLOWED].filter(
      (file) => lineCount(texts.get(file) ?? '') <= MAX_FILE_LINES,
    );
    expect(stale).toEqual([]);
  });
});
