/**
 * Finds every call that writes with raw `node:fs` in TypeScript sources (the TypeScript parser, not a regex): the
 * write, append, mkdir, rm, rename, copy, link, chmod/chown, truncate and write-stream functions, and `open` with
 * flags other than `'r'`, whether imported by name (`import { writeFile } from 'node:fs/promises'`) or used through
 * the module (`fs.mkdirSync`, `fs.promises.rm`). Used by harness-writes.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One raw write: the file (relative to the scanned root), the nearest named function around it, the fs function. */
export interface RawWrite {
  file: string;
  fn: string;
  api: string;
  line: number;
}

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/** The fs functions that change the filesystem. */
export const WRITE_APIS = new Set(
  [
    'writeFile',
    'appendFile',
    'mkdir',
    'mkdtemp',
    'rm',
    'rmdir',
    'unlink',
    'rename',
    'copyFile',
    'cp',
    'symlink',
    'link',
    'chmod',
    'lchmod',
    'chown',
    'lchown',
    'truncate',
    'utimes',
    'lutimes',
    'open',
  ].flatMap((name) => [name, `${name}Sync`]),
).add('createWriteStream');

/** The name of the nearest named function, method or function-valued variable/property around `node`. */
function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isFunctionDeclaration(at) && at.name) return at.name.text;
    if (ts.isMethodDeclaration(at) || ts.isGetAccessor(at)) {
      const owner = ts.isClassDeclaration(at.parent) && at.parent.name ? `${at.parent.name.text}.` : '';
      return `${owner}${at.name.getText()}`;
    }
    if (ts.isConstructorDeclaration(at)) {
      return `${ts.isClassDeclaration(at.parent) && at.parent.name ? at.parent.name.text : '?'}.constructor`;
    }
    const fnValue = (init: ts.Node | undefined) =>
      !!init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
    if (ts.isVariableDeclaration(at) && ts.isIdentifier(at.name) && fnValue(at.initializer))
      return at.name.text;
    if (ts.isPropertyAssignment(at) && fnValue(at.initializer)) return at.name.getText();
  }
  return '(module)';
}

/** True when an `open` call only reads: no flags, or the literal `'r'`. */
function readOnlyOpen(call: ts.CallExpression): boolean {
  const flags = call.arguments[1];
  return flags === undefined || (ts.isStringLiteral(flags) && flags.text === 'r');
}

/** The raw fs writes in one source text. */
export function rawWritesIn(file: string, text: string): RawWrite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const named = new Map<string, string>();
  const modules = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!FS_MODULES.has(statement.moduleSpecifier.text)) continue;
    const clause = statement.importClause;
    if (clause?.name) modules.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) modules.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        named.set(element.name.text, (element.propertyName ?? element.name).text);
      }
    }
  }
  const found: RawWrite[] = [];
  const apiOf = (callee: ts.Expression): string | undefined => {
    if (ts.isIdentifier(callee)) return named.get(callee.text);
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    const owner = callee.expression;
    const viaModule = ts.isIdentifier(owner) && modules.has(owner.text);
    const viaPromises =
      ts.isPropertyAccessExpression(owner) &&
      owner.name.text === 'promises' &&
      ts.isIdentifier(owner.expression) &&
      modules.has(owner.expression.text);
    return viaModule || viaPromises ? callee.name.text : undefined;
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const api = apiOf(node.expression);
      if (api && WRITE_APIS.has(api) && !(/^open(Sync)?$/.test(api) && readOnlyOpen(node))) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push({ file, fn: enclosingName(node), api, line });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every `.ts`/`.mjs` file under the folders (recursively), relative to `root`, in a stable order. */
export function sourceFiles(root: string, folders: readonly string[], skip: readonly string[]): string[] {
  const files: string[] = [];
  for (const folder of folders) {
    for (const name of fs.readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })) {
      const relative = path.join(folder, name).split(path.sep).join('/');
      if (!/\.(ts|mjs)$/.test(relative) || relative.endsWith('.d.ts')) continue;
      if (skip.some((prefix) => relative.startsWith(prefix))) continue;
      files.push(relative);
    }
  }
  return files.sort();
}
