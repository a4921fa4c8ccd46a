/**
 * Data of a replay's own, for checks that share one app in a sweep: a check that adds "Buy milk" and then ticks
 * "Toggle Buy milk" finds two such checkboxes once another check (or an earlier replay of the same one) added
 * "Buy milk" to the same app. As Playwright suites do for tests sharing a server, each replay then creates data
 * only it uses: every text the check types and later looks for (in a locator's name or text, or an
 * expectation), types again (a user name at sign-up and log-in) or types into a field for who someone is gets a
 * suffix unique to the replay, in the typing and in every later mention alike. Texts it types and never looks for again (a search term) and whatever it types
 * into a secret field (a password: the same one at sign-up and log-in) stay as recorded. A check the suffix breaks (a field
 * that validates its text, a user that must already exist) is red on the shared app and replayed as recorded on
 * an app of its own (evaluation/check-sweep.ts), so the suffix can cost time, never a wrong green.
 */

import { escapeRegExp } from '../core/regexp.js';
import type { CheckAction, CheckExpectation, RecordedCheck } from './format.js';
import { type LocatorStep, parseLocatorCode, printLocatorCode } from './locator-code.js';

/** Shortest typed text that is made unique (shorter ones are rarely an item's identity: "5", "ok"). */
const MIN_UNIQUE_TEXT = 3;

/** A field for a secret (a password, a PIN): what is typed there is never made unique (rules may refuse it). */
const SECRET_FIELD = /pass(?:word|code|phrase)?\b|\bpin\b|secret/i;

/** A field for who someone is (a user name, an e-mail address): what is typed there must be unique in the app. */
const IDENTITY_FIELD = /user\s*name|e-?mail|login|account|handle|nick\s*name/i;

/**
 * The texts that are the check's own data: typed (not into a secret field) and then looked for again (in a
 * locator or an expectation), typed again (a user name at sign-up and at log-in), or typed into a field for who
 * someone is (a second user signed up once: the app refuses the name the next time). Longest first.
 */
export function ownTexts(check: RecordedCheck): string[] {
  const mentions = laterMentions(check);
  const typings = check.actions.flatMap((action) =>
    (action.kind === 'fill' || action.kind === 'type') && !secretField(action.target)
      ? [{ text: action.text, identity: namedLike(action.target, IDENTITY_FIELD) }]
      : [],
  );
  const own = new Set<string>();
  typings.forEach(({ text, identity }, index) => {
    const typedAgain = typings.findIndex((typing) => typing.text === text) !== index;
    const mentioned = mentions.some((mention) => mention.includes(text));
    if (identifying(text) && (typedAgain || mentioned || identity)) own.add(text);
  });
  return [...own].sort((a, b) => b.length - a.length);
}

/**
 * The text made unique by `token`: `Buy milk` → `Buy milk r7k2`; a single word without a space (`alice` →
 * `alicer7k2`: user names rarely allow one); an e-mail address in its local part (`ann@example.com` →
 * `annr7k2@example.com`).
 */
export function uniqueVariant(text: string, token: string): string {
  const email = /^([^\s@]+)(@[^\s@]+)$/.exec(text);
  if (email) return `${email[1]}${token}${email[2]}`;
  return /\s/.test(text.trim()) ? `${text} ${token}` : `${text}${token}`;
}

/**
 * The check with its own texts (see {@link ownTexts}) made unique by `token` (e.g. `r7k2`): `Buy milk` becomes
 * `Buy milk r7k2` wherever the check types or looks for it. The check itself when it has no own texts.
 */
export function withReplayData(check: RecordedCheck, token: string): RecordedCheck {
  const typed = ownTexts(check);
  if (typed.length === 0) return check;
  // Longest first, one pass: a text inside a longer typed one ("Milk" in "Milk 2%") is not suffixed twice.
  const pattern = new RegExp(typed.map(escapeRegExp).join('|'), 'g');
  const unique = (text: string) => text.replace(pattern, (found) => uniqueVariant(found, token));
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

function identifying(text: string): boolean {
  return text.trim().length >= MIN_UNIQUE_TEXT && /\p{L}/u.test(text);
}

/** Whether the locator names a field for a secret (its role name, label or placeholder says so). */
export function secretField(code: string): boolean {
  return namedLike(code, SECRET_FIELD);
}

function namedLike(code: string, pattern: RegExp): boolean {
  return parseLocatorCode(code).some((step) => stepTexts(step).some((text) => pattern.test(text)));
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
      // A secret is typed as recorded: a suffix could break the app's rules for it (and nothing looks for it).
      return { ...retarget(action), text: secretField(action.target) ? action.text : unique(action.text) };
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
