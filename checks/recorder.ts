/**
 * Turns what an evaluator did in the browser (the observation log of agent/tools/browser-log.ts) into check
 * actions with stable locators, and the evidence of its pass into expectations the harness confirms on the
 * page itself. Targets are the locator code Playwright's `normalize()` gave at action time (role and name,
 * label, text, test id), kept only when the strict grammar of `locator-code.ts` accepts it: never a ref.
 */
import type { Page } from 'playwright-core';
import type { ObservationEntry } from '../agent/tools/browser-log.js';
import { evidenceQuotes } from '../handoff/evidence.js';
import { appPathOf } from './app-path.js';
import type { CheckAction, CheckExpectation } from './format.js';
import { type LocatorStep, parseLocatorCode, printLocatorCode } from './locator-code.js';
import { headingOf, mentionedPath } from './recorder-place.js';
import { findBaseline } from './relative-text.js';

/** Longest quoted evidence text turned into an expectation. */
const MAX_EXPECTED_TEXT = 200;
/** How long a probe of the page may take, in ms. */
const PROBE_TIMEOUT_MS = 1_000;

/** One feature's recording: the actions of a stretch of the log and why it cannot be replayed, if so. */
export interface RecordedSegment {
  actions: CheckAction[];
  /** Texts typed in the segment (a typed text that is gone is a grounded "not visible"). */
  typed: string[];
  /** For each action, the seq of the log entry it came from (0 for the `goto` the segment starts with). */
  actionSeqs: number[];
  /** Why the segment cannot be replayed (an element without a stable locator), when it cannot. */
  unrecordable?: string;
}

/**
 * The successful actions of the log entries after `afterSeq`, as check actions. A segment that does not start
 * by opening a page starts with a `goto` to the page its first action happened on.
 */
export function recordSegment(
  entries: readonly ObservationEntry[],
  afterSeq: number,
  baseUrl: string,
): RecordedSegment {
  const segment: RecordedSegment = { actions: [], typed: [], actionSeqs: [] };
  const before = [...entries].reverse().find((entry) => entry.seq <= afterSeq && entry.ok);
  for (const entry of entries) {
    if (entry.seq <= afterSeq || entry.kind !== 'action' || !entry.ok) continue;
    const actions = toActions(entry, baseUrl);
    if (typeof actions === 'string') segment.unrecordable ??= actions;
    else {
      segment.actions.push(...actions);
      segment.actionSeqs.push(...actions.map(() => entry.seq));
    }
    if (entry.tool === 'browser_type' && typeof entry.args.text === 'string')
      segment.typed.push(entry.args.text);
  }
  if (segment.actions[0]?.kind !== 'goto') {
    // A start off the app (a refused page, about:blank) starts at the app's root.
    const start = before?.url ? appPathOf(before.url, baseUrl) : null;
    segment.actions.unshift({ kind: 'goto', path: start ?? '/' });
    segment.actionSeqs.unshift(0);
  }
  return segment;
}

/**
 * The index of the last check action recorded at or before log entry `seq` (0, the segment's first `goto`, when
 * none was): where a replay stands when the session saw that entry.
 */
export function actionIndexAt(segment: Pick<RecordedSegment, 'actionSeqs'>, seq: number): number {
  const index = segment.actionSeqs.findLastIndex((actionSeq) => actionSeq <= seq);
  return Math.max(index, 0);
}

/**
 * Text expectations with a number the session was also shown earlier, before the check's last action, as
 * `relativeText`: "1 item left" seen at the end after "0 items left" right after opening the page holds as "one
 * more than when the check opened the page" on an app that other checks or sessions left data in. A text holding
 * data the check typed stays as it is (it is the check's own), and so does a number first seen after the last
 * action (nothing of the check's own to count from).
 */
export function countedFromBaseline(
  expectations: readonly CheckExpectation[],
  entries: readonly ObservationEntry[],
  segment: Pick<RecordedSegment, 'actionSeqs' | 'typed' | 'actions'>,
): CheckExpectation[] {
  const lastAction = segment.actions.length - 1;
  return expectations.map((expectation) => {
    if (expectation.kind !== 'text' || !expectation.visible) return expectation;
    const own = segment.typed.some(
      (typed) => typed.length > 0 && (expectation.text.includes(typed) || typed.includes(expectation.text)),
    );
    if (own) return expectation;
    const baseline = findBaseline(expectation.text, entries, (seq) => actionIndexAt(segment, seq));
    if (!baseline || baseline.afterAction >= lastAction) return expectation;
    return { kind: 'relativeText', text: expectation.text, baseline };
  });
}

/** The check actions of one logged action, or why it cannot be replayed. */
function toActions(entry: ObservationEntry, baseUrl: string): CheckAction[] | string {
  const args = entry.args;
  if (entry.newTabs?.length && entry.tool !== 'browser_click') {
    return `${entry.tool} opened a tab; a check follows a new tab only after a click`;
  }
  switch (entry.tool) {
    case 'browser_navigate': {
      const url = entry.navigation?.url ?? String(args.url);
      const path = appPathOf(url, baseUrl);
      if (path === null)
        return `browser_navigate went to ${url.slice(0, 200)}, off the app's origin; a check opens only pages of the app`;
      return [{ kind: 'goto', path }];
    }
    case 'browser_navigate_back':
      return [{ kind: 'back' }];
    case 'browser_press_key':
      return [{ kind: 'press', key: String(args.key) }];
    case 'browser_resize':
      return [{ kind: 'resize', width: Number(args.width), height: Number(args.height) }];
    case 'browser_tabs':
      if (args.action === 'select') return [{ kind: 'tab', index: Number(args.index) }];
      return `browser_tabs ${String(args.action)} is not an action a check can replay`;
  }
  const target = stableTarget(entry.target);
  if (!target) {
    const name = entry.target?.name ? ` "${entry.target.name}"` : '';
    return `the ${entry.target?.role ?? 'element'}${name} of ${entry.tool} has no stable locator (role and name, label, text or test id)`;
  }
  switch (entry.tool) {
    case 'browser_click':
      return [clickAction(entry, target)];
    case 'browser_type': {
      const text = String(args.text ?? '');
      const typing: CheckAction =
        args.slowly === true ? { kind: 'type', target, text } : { kind: 'fill', target, text };
      return [typing, ...(args.submit === true ? [{ kind: 'press' as const, key: 'Enter', target }] : [])];
    }
    case 'browser_select_option':
      return [{ kind: 'select', target, values: (args.values as unknown[]).map(String) }];
    case 'browser_hover':
      return [{ kind: 'hover', target }];
    case 'browser_drag': {
      const to = stableTarget(entry.dropTarget);
      if (!to) return 'the element browser_drag dropped on has no stable locator';
      return [{ kind: 'drag', target, to }];
    }
    default:
      return `${entry.tool} is not an action a check can replay`;
  }
}

/** A click, with how its dialog was answered and whether it opened a tab. */
function clickAction(entry: ObservationEntry, target: string): CheckAction {
  const dialog = entry.dialogs[0];
  const answer = dialog
    ? { dialog: dialog.answer === 'accepted' ? ('accept' as const) : ('dismiss' as const) }
    : {};
  const prompt = dialog?.promptText !== undefined ? { promptText: dialog.promptText } : {};
  const popup = (entry.newTabs?.length ?? 0) > 0 ? { popup: true } : {};
  return { kind: 'click', target, ...answer, ...prompt, ...popup };
}

/** The target as canonical locator code, when Playwright gave one our grammar accepts. */
function stableTarget(observed: ObservationEntry['target']): string | undefined {
  const code = observed?.locator;
  if (!code) return undefined;
  try {
    return printLocatorCode(exactRoleNames(parseLocatorCode(code), observed));
  } catch {
    return undefined;
  }
}

/**
 * The target's role step matches the whole accessible name: Playwright's normalized code matches a name as a
 * case-insensitive substring, so a recorded "Add" would also find an "Add tag" added later. The full name comes
 * from the snapshot line of the element (the code may hold only a prefix of a long name); without it the step is
 * left as it is, since an exact prefix would never match.
 */
export function exactRoleNames(
  steps: readonly LocatorStep[],
  target: { role?: string; name?: string } = {},
): LocatorStep[] {
  const targetStep = steps.findLastIndex((step) => step.kind === 'role');
  const full = target.name?.replace(/\s+/g, ' ').trim();
  return steps.map((step, index) => {
    if (index !== targetStep || step.kind !== 'role' || step.name === undefined || step.exact) return step;
    const confirmed =
      target.role === step.role && !!full && full.toLowerCase().includes(step.name.toLowerCase());
    return confirmed ? { ...step, name: full, exact: true } : step;
  });
}

/**
 * Expectations from the quoted texts of the evidence (`the list shows "Buy milk"`), each kept only when the
 * page confirms it now: a checkbox of that name in its current state, a visible text (and the heading of that
 * exact name, if the page has one), or a text the segment typed that is gone; and the page's URL path when the
 * evidence names it (recorder-place.ts). What the page does not confirm is not expected.
 */
export async function confirmedExpectations(
  page: Page,
  evidence: readonly string[],
  typed: readonly string[],
  baseUrl?: string,
): Promise<CheckExpectation[]> {
  const result: CheckExpectation[] = [];
  for (const text of quotedTexts(evidence)) {
    const expectation = await confirm(page, text, typed).catch(() => undefined);
    if (expectation) result.push(expectation);
    if (expectation?.kind === 'text' && expectation.visible) {
      const heading = await headingOf(page, text, typed).catch(() => undefined);
      if (heading) result.push(heading);
    }
  }
  // The path pins where the texts were seen; on its own it would make a check of a pass that quotes nothing.
  if (result.length === 0 || baseUrl === undefined) return result;
  const path = mentionedPath(page.url(), baseUrl, evidence, typed);
  if (path) result.push(path);
  return result;
}

async function confirm(
  page: Page,
  text: string,
  typed: readonly string[],
): Promise<CheckExpectation | undefined> {
  const box = page.getByRole('checkbox', { name: text, exact: true });
  if ((await box.count()) === 1) {
    const checked = await box.isChecked({ timeout: PROBE_TIMEOUT_MS });
    const target = printLocatorCode([{ kind: 'role', role: 'checkbox', name: text, exact: true }]);
    return { kind: 'checked', target, checked };
  }
  const visible = await page.getByText(text).filter({ visible: true }).count();
  if (visible > 0) return { kind: 'text', text, visible: true };
  if (typed.includes(text)) return { kind: 'text', text, visible: false };
  return undefined;
}

/**
 * Distinct texts quoted in the evidence, in order of appearance, read as grounding reads them
 * (handoff/evidence.ts: any quote marks, trailing punctuation dropped, a copied snapshot line's name or text).
 */
export function quotedTexts(evidence: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const line of evidence) {
    for (const { text } of evidenceQuotes(line)) {
      if (text.length > 0 && text.length <= MAX_EXPECTED_TEXT) seen.add(text);
    }
  }
  return [...seen];
}
