/**
 * Data of a replay's own, for checks that share one app in a sweep: a check that adds "Buy milk" and then ticks
 * "Toggle Buy milk" finds two such checkboxes once another check (or an earlier replay of the same one) added
 * "Buy milk" to the same app. As Playwright suites do for tests sharing a server, each replay then creates data
 * only it uses: every text the check types and later looks for (in a locator's name or text, or an
 * expectation) gets a suffix unique to the replay, in the typing and in every later mention alike. Texts it types
 * and never looks for again (a password, a search term) stay as recorded. A check the suffix breaks (a field
 * that validates its text, a user that must already exist) is red on the shared app and replayed as recorded on
 * an app of its own (roles/check-sweep.ts), so the suffix can cost time, never a wrong green.
 */
import type { CheckAction, CheckExpectation, RecordedCheck } from './format.js';
import { type LocatorStep, parseLocatorCode, printLocatorCode } from './locator-code.js';

/** Shortest typed text that is made unique (shorter ones are rarely an item's identity: "5", "ok"). */
const MIN_UNIQUE_TEXT = 3;

/**
 * The check with its identifying texts made unique by `token` (e.g. `r7k2`): `Buy milk` becomes `Buy milk r7k2`
 * wherever the check types or looks for it. The check itself when none of its typed texts is looked for again.
 */
export function withReplayData(check: RecordedCheck, token: string): RecordedCheck {
  const mentions = laterMentions(check);
  const typed = new Set<string>();
  for (const action of check.actions) {
    if ((action.kind === 'fill' || action.kind === 'type') && identifies(action.text, mentions)) {
      typed.add(action.text);
    }
  }
  if (typed.size === 0) return check;
  // Longest first, one pass: a text inside a longer typed one ("Milk" in "Milk 2%") is not suffixed twice.
  const pattern = new RegExp(
    [...typed]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  const unique = (text: string) => text.replace(pattern, (found) => `${found} ${token}`);
  return {
    ...check,
    actions: check.actions.map((action) => uniqueAction(action, unique)),
    expectations: check.expectations.map((expectation) => uniqueExpectation(expectation, unique)),
  };
}

/** Every string the check looks for: locator names and texts, expected texts and values. */
function laterMentions(check: RecordedCheck): string[] {
  const mentions: string[] = [];
  const ofTarget = (code: string | undefined) => {
    if (code) for (const step of parseLocatorCode(code)) mentions.push(...stepTexts(step));
  };
  for (const action of check.actions) {
    if ('target' in action) ofTarget(action.target);
    if (action.kind === 'drag') ofTarget(action.to);
  }
  for (const expectation of check.expectations) {
    if ('target' in expectation) ofTarget(expectation.target);
    if (expectation.kind === 'text') mentions.push(expectation.text);
    if (expectation.kind === 'value') mentions.push(expectation.value);
  }
  return mentions;
}

function identifies(text: string, mentions: readonly string[]): boolean {
  return (
    text.trim().length >= MIN_UNIQUE_TEXT &&
    /\p{L}/u.test(text) &&
    mentions.some((mention) => mention.includes(text))
  );
}

function stepTexts(step: LocatorStep): string[] {
  if (step.kind === 'role') return step.name === undefined ? [] : [step.name];
  if (step.kind === 'text' || step.kind === 'label' || step.kind === 'placeholder') return [step.text];
  return [];
}

function uniqueTarget(code: string, unique: (text: string) => string): string {
  const steps = parseLocatorCode(code).map((step): LocatorStep => {
    if (step.kind === 'role' && step.name !== undefined) return { ...step, name: unique(step.name) };
    if (step.kind === 'text' || step.kind === 'label' || step.kind === 'placeholder')
      return { ...step, text: unique(step.text) };
    return step;
  });
  return printLocatorCode(steps);
}

function uniqueAction(action: CheckAction, unique: (text: string) => string): CheckAction {
  const retarget = <T extends { target: string }>(withTarget: T): T => ({
    ...withTarget,
    target: uniqueTarget(withTarget.target, unique),
  });
  switch (action.kind) {
    case 'fill':
    case 'type':
      return { ...retarget(action), text: unique(action.text) };
    case 'drag':
      return { ...retarget(action), to: uniqueTarget(action.to, unique) };
    case 'press':
      return action.target ? retarget({ ...action, target: action.target }) : action;
    case 'click':
    case 'select':
    case 'hover':
    case 'check':
      return retarget(action);
    default:
      return action;
  }
}

function uniqueExpectation(
  expectation: CheckExpectation,
  unique: (text: string) => string,
): CheckExpectation {
  switch (expectation.kind) {
    case 'text':
      return { ...expectation, text: unique(expectation.text) };
    case 'value':
      return {
        ...expectation,
        target: uniqueTarget(expectation.target, unique),
        value: unique(expectation.value),
      };
    case 'checked':
    case 'count':
      return { ...expectation, target: uniqueTarget(expectation.target, unique) };
    default:
      return expectation;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
