/**
 * Where in the spec a feature comes from (best effort, pure): the generator's brief points at that section, so
 * it reads the details the feature's steps leave out without searching the whole spec. The feature's category
 * and description are matched by their words against each markdown section's heading and paragraphs.
 */

/** The part of the spec a feature most likely comes from. */
export interface SpecSection {
  /** The section's heading path, e.g. `Todo app › Features`. */
  heading: string;
  /** 1-based line of the heading in the spec (of the matching paragraph when the spec has no headings). */
  line: number;
  /** The paragraph or list item of the section that matches best (cut to `maxExcerptChars`). */
  excerpt: string;
}

/** Words too common in specs and feature descriptions to tell sections apart. */
const STOP_WORDS = new Set(
  'the and for with that this from into when then than are was were can its has have not but all any one each you your their them they there what which who will would should must may page user users app able shows show'.split(
    ' ',
  ),
);

/** Lowercase words of three letters or more, stop words out, a plural or -ed/-ing ending cut (crude stemming). */
export function keywords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? [];
  return new Set(words.filter((word) => !STOP_WORDS.has(word)).map(stem));
}

function stem(word: string): string {
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

interface Block {
  line: number;
  text: string;
}

interface Section {
  heading: string;
  /** 1 for the document's title (`# Todo app`): it names the whole app, so it matches every feature. */
  level: number;
  line: number;
  blocks: Block[];
}

/** Splits a markdown spec into sections (by ATX headings) and each section into paragraphs and list items. */
export function specSections(specText: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { heading: '', level: 0, line: 1, blocks: [] };
  let block: Block | undefined;
  let inFence = false;
  specText.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      sections.push(current);
      const level = (heading[1] as string).length;
      path.splice(level - 1, path.length, heading[2] as string);
      current = { heading: path.filter(Boolean).join(' › '), level, line: index + 1, blocks: [] };
      block = undefined;
      return;
    }
    const startsItem = !inFence && /^\s{0,3}([-*+]|\d+[.)])\s+/.test(line);
    if (line.trim() === '' || startsItem) block = undefined;
    if (line.trim() === '') return;
    if (!block) {
      block = { line: index + 1, text: '' };
      current.blocks.push(block);
    }
    block.text += `${block.text ? '\n' : ''}${line}`;
  });
  sections.push(current);
  return sections.filter((section) => section.heading || section.blocks.length);
}

function overlap(words: Set<string>, text: string): number {
  let count = 0;
  for (const word of keywords(text)) if (words.has(word)) count++;
  return count;
}

/** The feature's name when its description starts with one (`Delete a todo: …` → `Delete a todo`). */
function titleOf(description: string): Set<string> {
  const head = /^([^:.]{3,60})[:.]/.exec(description)?.[1];
  return head ? keywords(head) : new Set();
}

/** True when a paragraph's bold lead (`**Delete a todo.**`) has every word of the feature's name. */
function leadMatches(title: Set<string>, text: string): boolean {
  const lead = /\*\*([^*]+)\*\*/.exec(text)?.[1];
  if (!lead || title.size === 0) return false;
  const words = keywords(lead);
  return [...title].every((word) => words.has(word));
}

/**
 * The spec section a feature most likely comes from, or undefined when no section shares a word with the
 * feature. A section scores its heading's matches twice (headings name features or areas; not the document's
 * title) plus its best paragraph's, where a paragraph led by the feature's name in bold gets 3 more; the first
 * section wins a tie.
 */
export function specSectionFor(
  specText: string,
  feature: { category: string; description: string },
  maxExcerptChars = 1_200,
): SpecSection | undefined {
  const description = keywords(feature.description);
  const all = new Set([...description, ...keywords(feature.category)]);
  const title = titleOf(feature.description);
  let best: { score: number; section: Section; block: Block | undefined } | undefined;
  for (const section of specSections(specText)) {
    const last = section.heading.split(' › ').at(-1) ?? '';
    let top: { score: number; block: Block } | undefined;
    for (const block of section.blocks) {
      const score = overlap(description, block.text) + (leadMatches(title, block.text) ? 3 : 0);
      if (score > (top?.score ?? 0)) top = { score, block };
    }
    const score = (section.level > 1 ? 2 * overlap(all, last) : 0) + (top?.score ?? 0);
    if (score > (best?.score ?? 0)) best = { score, section, block: top?.block };
  }
  if (!best) return undefined;
  const { section, block } = best;
  const text = block?.text ?? section.blocks.map((b) => b.text).join('\n\n');
  return {
    heading: section.heading || '(before the first heading)',
    line: section.heading ? section.line : (block?.line ?? section.line),
    excerpt: text.length > maxExcerptChars ? `${text.slice(0, maxExcerptChars)} …` : text,
  };
}
