/**
 * The shape of a spec the planner writes: the sections the initializer reads best, each present and non-empty,
 * under a size cap. The check returns every problem at once, worded so the model can fix them in one go.
 */

/** One required `## ` section of a planned spec. */
export interface SpecSection {
  /** The heading the prompt asks for. */
  heading: string;
  /** Headings accepted for it (case-insensitive, matched at the start of the heading text). */
  accepts: RegExp;
  /** What belongs in it, for the error message. */
  holds: string;
}

/** The sections of a planned spec, in the order the prompt asks for them. */
export const SPEC_SECTIONS: readonly SpecSection[] = [
  { heading: 'Overview', accepts: /^(product )?overview\b/i, holds: 'what the product is and why' },
  { heading: 'Users and flows', accepts: /^users\b/i, holds: 'who uses it and their main flows' },
  {
    heading: 'Features',
    accepts: /^features\b/i,
    holds: 'features grouped by area (### headings), each with acceptance criteria a browser can check',
  },
  { heading: 'Visual direction', accepts: /^(visual|look and feel)\b/i, holds: 'look, tone, layout' },
  {
    heading: 'Stack and constraints',
    accepts: /^(stack|constraints|technical constraints)\b/i,
    holds: 'platform, storage, how it starts, limits',
  },
  {
    heading: 'Out of scope',
    accepts: /^(out of scope|non-goals)\b/i,
    holds: 'what it deliberately does not do',
  },
];

/**
 * Control characters other than tab, newline and carriage return: never in model text the harness shows
 * (a terminal would act on an escape sequence in a question or a spec).
 */
export const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Largest planned spec, in bytes: far below what an initializer can read, far above what an idea needs. */
export const MAX_PLANNED_SPEC_BYTES = 64 * 1024;

interface Heading {
  level: number;
  text: string;
  /** Index of the heading's line. */
  line: number;
}

/** ATX headings outside fenced code blocks (a `## ` inside a ``` block is code, not structure). */
function headingsOf(lines: readonly string[]): Heading[] {
  const headings: Heading[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const match = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (match) headings.push({ level: (match[1] as string).length, text: match[2] as string, line: index });
  });
  return headings;
}

/** The lines of a section: after its heading, up to the next heading of the same or a higher level. */
function bodyOf(lines: readonly string[], headings: readonly Heading[], at: number): string[] {
  const heading = headings[at] as Heading;
  const next = headings.slice(at + 1).find((other) => other.level <= heading.level);
  return lines.slice(heading.line + 1, next ? next.line : lines.length);
}

const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+\S/;

function featureProblems(lines: readonly string[], headings: readonly Heading[], at: number): string[] {
  const featuresLevel = (headings[at] as Heading).level;
  const end = headings.findIndex((other, index) => index > at && other.level <= featuresLevel);
  const areas = headings
    .map((heading, index) => ({ heading, index }))
    .slice(at + 1, end < 0 ? undefined : end)
    .filter(({ heading }) => heading.level === featuresLevel + 1);
  if (areas.length === 0) {
    return [
      `"Features" has no areas: group the features under "${'#'.repeat(featuresLevel + 1)} <area>" headings.`,
    ];
  }
  return areas
    .filter(({ index }) => !bodyOf(lines, headings, index).some((line) => LIST_ITEM.test(line)))
    .map(
      ({ heading }) =>
        `Features area "${heading.text}" lists no acceptance criteria: add list items a user can check in a browser.`,
    );
}

/**
 * Every problem with a planned spec (empty when it is fine): a title, each required section present and
 * non-empty, feature areas with acceptance criteria, plain text, under {@link MAX_PLANNED_SPEC_BYTES}.
 */
export function plannedSpecProblems(markdown: string): string[] {
  if (markdown.trim() === '') return ['The spec is empty: submit the whole spec as markdown.'];
  const problems: string[] = [];
  const bytes = Buffer.byteLength(markdown);
  if (bytes > MAX_PLANNED_SPEC_BYTES) {
    problems.push(
      `The spec is ${bytes} bytes; the limit is ${MAX_PLANNED_SPEC_BYTES}. Cut detail that does not change what a user can do.`,
    );
  }
  if (CONTROL_CHARACTERS.test(markdown)) {
    problems.push('The spec contains control characters: submit plain markdown text.');
  }
  const lines = markdown.split(/\r?\n/);
  const headings = headingsOf(lines);
  const title = headings.find((heading) => heading.level === 1);
  if (!title || title.text.trim() === '')
    problems.push('The spec has no title: start with "# <product name>".');
  for (const section of SPEC_SECTIONS) {
    const at = headings.findIndex((heading) => heading.level === 2 && section.accepts.test(heading.text));
    if (at < 0) {
      problems.push(`Section "## ${section.heading}" is missing (${section.holds}).`);
      continue;
    }
    const body = bodyOf(lines, headings, at).filter((line) => !/^\s{0,3}#{1,6}\s/.test(line));
    if (body.every((line) => line.trim() === '')) {
      problems.push(`Section "## ${section.heading}" is empty (${section.holds}).`);
      continue;
    }
    if (section.heading === 'Features') problems.push(...featureProblems(lines, headings, at));
  }
  return problems;
}
