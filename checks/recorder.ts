/**
 * Records what an evaluator does in the browser as check actions with stable locators, and turns the evidence
 * of its pass into expectations the harness has confirmed on the page itself. Refs (`e12`) are resolved to
 * locator code at action time with Playwright's `locator.normalize()` (role and name, label, text, test id),
 * then kept only if the strict grammar of `locator-code.ts` accepts them.
 */
import type { Locator, Page } from 'playwright-core';
import type { BrowserActionNote } from '../agent/tools/browser-state.js';
import type { CheckAction, CheckExpectation } from './format.js';
import { buildLocator, parseLocatorCode, printLocatorCode } from './locator-code.js';
import { pathOf } from './replay.js';

/** Longest quoted evidence text turned into an expectation. */
const MAX_EXPECTED_TEXT = 200;
/** How long a probe of the page may take, in ms. */
const PROBE_TIMEOUT_MS = 1_000;

/** One feature's recording: the actions since the previous verdict and why some could not be recorded. */
export interface RecordedSegment {
  actions: CheckAction[];
  /** Why the segment cannot be replayed (an element without a stable locator), when it cannot. */
  unrecordable?: string;
}

/** Collects the session's actions; `takeSegment` hands them out per verdict. */
export class CheckRecorder {
  private actions: CheckAction[] = [];
  private typed: string[] = [];
  private unrecordable: string | undefined;
  private segmentUrl: string | undefined;

  constructor(
    private readonly page: Page,
    /** The app's URL: navigations are stored as paths on it. */
    private readonly baseUrl: string,
  ) {}

  /** The hook for the browser tools (`BrowserToolSession.recordAction`). */
  readonly recordAction = async (note: BrowserActionNote): Promise<(() => void) | undefined> => {
    if (this.actions.length === 0 && this.segmentUrl === undefined) this.segmentUrl = this.page.url();
    const recorded = await this.toActions(note);
    if (!recorded) return undefined;
    return () => {
      this.actions.push(...recorded);
      if (note.kind === 'type') this.typed.push(note.text);
    };
  };

  private async toActions(note: BrowserActionNote): Promise<CheckAction[] | undefined> {
    if (note.kind === 'navigate') return [{ kind: 'goto', path: pathOf(note.url, this.baseUrl) }];
    if (note.kind === 'press') return [{ kind: 'press', key: note.key }];
    const target = await stableLocator(this.page, note.target);
    if (!target) {
      this.unrecordable ??= `the element of a ${note.kind} has no stable locator (role and name, label, text or test id)`;
      return undefined;
    }
    switch (note.kind) {
      case 'click':
        return [{ kind: 'click', target }];
      case 'select':
        return [{ kind: 'select', target, values: note.values }];
      case 'type':
        return [
          { kind: 'fill', target, text: note.text },
          ...(note.submit ? [{ kind: 'press' as const, key: 'Enter', target }] : []),
        ];
    }
  }

  /**
   * The actions since the last call (a verdict ends a segment). A segment that does not start by opening a
   * page starts with a `goto` to where its first action happened, so it replays from a blank browser.
   */
  takeSegment(): RecordedSegment {
    let actions = this.actions;
    if (actions[0]?.kind !== 'goto') {
      const start = this.segmentUrl && this.segmentUrl !== 'about:blank' ? this.segmentUrl : this.baseUrl;
      actions = [{ kind: 'goto', path: pathOf(start, this.baseUrl) }, ...actions];
    }
    const segment: RecordedSegment = {
      actions,
      ...(this.unrecordable ? { unrecordable: this.unrecordable } : {}),
    };
    this.actions = [];
    this.unrecordable = undefined;
    this.segmentUrl = this.page.url();
    return segment;
  }

  /**
   * Expectations from the quoted texts of the evidence (`the list shows "Buy milk"`), each kept only when the
   * page confirms it now: a checkbox of that name in its current state, a visible text, or a text this session
   * typed that is gone. What the page does not confirm is not expected.
   */
  async expectations(evidence: readonly string[]): Promise<CheckExpectation[]> {
    const result: CheckExpectation[] = [];
    for (const text of quotedTexts(evidence)) {
      const expectation = await this.confirm(text).catch(() => undefined);
      if (expectation) result.push(expectation);
    }
    return result;
  }

  private async confirm(text: string): Promise<CheckExpectation | undefined> {
    const box = this.page.getByRole('checkbox', { name: text, exact: true });
    if ((await box.count()) === 1) {
      const checked = await box.isChecked({ timeout: PROBE_TIMEOUT_MS });
      const target = printLocatorCode([{ kind: 'role', role: 'checkbox', name: text, exact: true }]);
      return { kind: 'checked', target, checked };
    }
    const visible = await this.page.getByText(text).filter({ visible: true }).count();
    if (visible > 0) return { kind: 'text', text, visible: true };
    if (this.typed.includes(text)) return { kind: 'text', text, visible: false };
    return undefined;
  }
}

/** Distinct texts quoted in the evidence ("…", “…”), in order of appearance. */
export function quotedTexts(evidence: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const line of evidence) {
    for (const match of line.matchAll(/"([^"\n]+)"|“([^”\n]+)”/g)) {
      const text = (match[1] ?? match[2] ?? '').trim();
      if (text.length > 0 && text.length <= MAX_EXPECTED_TEXT) seen.add(text);
    }
  }
  return [...seen];
}

/**
 * Locator code for the element that Playwright's `normalize()` would write, in our grammar; a role or text
 * match is made exact when that still finds only this element. Undefined when no stable locator exists.
 */
export async function stableLocator(page: Page, element: Locator): Promise<string | undefined> {
  let code: string;
  try {
    code = printLocatorCode(parseLocatorCode((await element.normalize()).toString()));
  } catch {
    return undefined;
  }
  const [first, ...rest] = parseLocatorCode(code);
  const exactable =
    (first?.kind === 'role' && first.name !== undefined) || first?.kind === 'text' ? first : undefined;
  if (rest.length === 0 && exactable && exactable.exact === undefined) {
    const exact = printLocatorCode([{ ...exactable, exact: true }]);
    if (
      (await buildLocator(page, exact)
        .count()
        .catch(() => 0)) === 1
    )
      return exact;
  }
  return (await buildLocator(page, code)
    .count()
    .catch(() => 0)) === 1
    ? code
    : undefined;
}
