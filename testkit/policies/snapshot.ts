/**
 * Reading the aria snapshots the browser tools return (Playwright's AI mode: YAML-like lines such as
 * `- checkbox "Toggle milk" [checked] [ref=e15]` or `- status [ref=e25]: 2 items left`), the way a
 * model reads them: roles, names, states, refs and text.
 */

/** One element line of a snapshot. */
export interface SnapshotNode {
  role: string;
  /** The accessible name (the quoted part), if any. */
  name: string | undefined;
  /** Bracketed states other than the ref, e.g. `checked`, `pressed`, `level=1`, `active`. */
  states: string[];
  ref: string | undefined;
  /** Text after the colon (the element's text or value), if any. */
  text: string | undefined;
  indent: number;
  /** Position in the snapshot, for nesting. */
  index: number;
}

const LINE = /^(\s*)- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]]+\])*)(?::(?: (.*))?)?$/;

/** The snapshot part of a browser tool result (the lines after `Snapshot:`), or the whole text. */
export function snapshotText(toolResult: string): string {
  const at = toolResult.indexOf('\nSnapshot:\n');
  return at < 0 ? toolResult : toolResult.slice(at + '\nSnapshot:\n'.length);
}

/** Parses the element lines of a snapshot (property lines like `- /placeholder: …` are skipped). */
export function parseSnapshot(snapshot: string): SnapshotNode[] {
  const nodes: SnapshotNode[] = [];
  for (const line of snapshot.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const brackets = [...(match[4] ?? '').matchAll(/\[([^\]]+)\]/g)].map((m) => m[1] as string);
    const refState = brackets.find((state) => state.startsWith('ref='));
    nodes.push({
      role: match[2] as string,
      name: match[3]?.replace(/\\(.)/g, '$1'),
      states: brackets.filter((state) => !state.startsWith('ref=')),
      ref: refState?.slice('ref='.length),
      text: unquote(match[5]?.trim() || undefined),
      indent: (match[1] ?? '').length,
      index: nodes.length,
    });
  }
  return nodes;
}

function unquote(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return /^".*"$/.test(text) ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;
}

/** The first node with this role and exact name. */
export function findNode(
  nodes: readonly SnapshotNode[],
  role: string,
  name: string,
): SnapshotNode | undefined {
  return nodes.find((node) => node.role === role && node.name === name);
}

/** The nodes nested under `parent` (deeper indentation until the next sibling). */
export function childrenOf(nodes: readonly SnapshotNode[], parent: SnapshotNode): SnapshotNode[] {
  const children: SnapshotNode[] = [];
  for (const node of nodes.slice(parent.index + 1)) {
    if (node.indent <= parent.indent) break;
    children.push(node);
  }
  return children;
}

/** The texts of the items of the list with this name, in order (an item's own text, else its text child's). */
export function listItemTexts(nodes: readonly SnapshotNode[], listName: string): string[] | undefined {
  const list = findNode(nodes, 'list', listName);
  if (!list) return undefined;
  const inside = childrenOf(nodes, list);
  return inside
    .filter((node) => node.role === 'listitem')
    .map((item) => {
      if (item.text) return item.text;
      const children = childrenOf(nodes, item).filter((child) => child.text !== undefined);
      // While an item is being edited its text lives in a text box instead.
      const textChild =
        children.find((child) => child.role === 'generic' || child.role === 'text') ??
        children.find((child) => child.role === 'textbox');
      return textChild?.text ?? '';
    });
}

/** The text of the first element with this role (e.g. the `status` line). */
export function textOfRole(nodes: readonly SnapshotNode[], role: string): string | undefined {
  return nodes.find((node) => node.role === role)?.text;
}
