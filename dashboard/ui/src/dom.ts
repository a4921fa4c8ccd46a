// DOM helpers. Data (anything from the API, above all model output) only ever becomes text nodes.

type Child = Node | string | number | null | undefined | false;

/** Attributes el() sets; values are plain strings, never markup. */
export interface Attrs {
  class?: string;
  title?: string;
  href?: string;
  id?: string;
  type?: string;
  role?: string;
  [data: `data-${string}`]: string;
  [aria: `aria-${string}`]: string;
}

/** Creates an element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (attrs)
    for (const [name, value] of Object.entries(attrs))
      if (value !== undefined) node.setAttribute(name, value);
  append(node, ...children);
  return node;
}

/** Appends children, strings as text. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes. */
export function svg(
  tag: string,
  attrs: Record<string, string | number> = {},
  ...children: Child[]
): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  append(node, ...children);
  return node;
}
