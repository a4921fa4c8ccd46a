/**
 * The interpreter of the meal-planner check format (check-format.ts): performs each feature step's actions
 * through an AppPage, checks its expectations against what the page shows, and records a verdict step with the
 * evidence (page text in double quotes, as grounded verdicts want it). Anything unexpected fails the step with
 * what the page showed; a page that does not load at all blocks the check. Never a made-up pass.
 */
import type { SubmittedVerdictArgs } from '../evaluator.js';
import { CheckBlocked, StepFailed, StepRecorder } from '../evaluator-page.js';
import type { ScriptIO } from '../script.js';
import type { MealPlannerFeature } from './catalogue.js';
import {
  type CheckAction,
  type CheckStep,
  type CountIs,
  checkUser,
  type Expectation,
  interpolate,
  type Target,
} from './check-format.js';
import { AppPage, describe } from './check-page.js';

/** State of one check run: the page, the session tag, and what the check remembered. */
interface CheckRun {
  page: AppPage;
  tag: string;
  paths: Map<string, string>;
  counts: Map<string, number>;
}

function text(run: CheckRun, value: string): string {
  return interpolate(value, run.tag, run.paths);
}

function target(run: CheckRun, value: Target): Target {
  return { role: value.role, name: text(run, value.name) };
}

function signUp(run: CheckRun, alias: string): string {
  const user = checkUser(alias, run.tag);
  run.page.goto('/signup');
  run.page.fillForm(
    [
      { target: { role: 'textbox', name: 'Name' }, text: user.name },
      { target: { role: 'textbox', name: 'Email' }, text: user.email },
      { target: { role: 'textbox', name: 'Password' }, text: user.password },
    ],
    { role: 'button', name: 'Create account' },
  );
  expectSignedIn(run, user.name, 'sign up');
  return `Signed up as "${user.name}" (${user.email}); the header says "Signed in as ${user.name}".`;
}

function logIn(run: CheckRun, alias: string): string {
  const user = checkUser(alias, run.tag);
  run.page.goto('/login');
  run.page.fillForm(
    [
      { target: { role: 'textbox', name: 'Email' }, text: user.email },
      { target: { role: 'textbox', name: 'Password' }, text: user.password },
    ],
    { role: 'button', name: 'Log in' },
  );
  expectSignedIn(run, user.name, 'log in');
  return `Logged in as ${user.email}; the header says "Signed in as ${user.name}".`;
}

function expectSignedIn(run: CheckRun, name: string, what: string): void {
  if (!run.page.shows(`Signed in as ${name}`)) {
    throw new StepFailed(
      `Tried to ${what} as ${name}, but the page does not say "Signed in as ${name}". ${run.page.summary()}`,
    );
  }
}

function perform(run: CheckRun, action: CheckAction): string {
  const { page } = run;
  if ('goto' in action) {
    page.goto(text(run, action.goto));
    return `Opened ${page.pathAndQuery()}.`;
  }
  if ('fill' in action) {
    const field = target(run, action.fill);
    const value = text(run, action.text);
    page.fill(field, value, action.submit);
    return `Typed "${value}" into the ${describe(field)}${action.submit ? ' and pressed Enter' : ''}.`;
  }
  if ('click' in action) {
    const element = target(run, action.click);
    page.click(element);
    return `Clicked the ${describe(element)}.`;
  }
  if ('select' in action) {
    const element = target(run, action.select);
    const option = text(run, action.option);
    page.select(element, option);
    return `Chose "${option}" in the ${describe(element)}.`;
  }
  if ('press' in action) {
    page.press(action.press);
    return `Pressed ${action.press}.`;
  }
  if ('dialog' in action) {
    page.answerNextDialog(action.dialog === 'accept');
    return `Set the next dialog to be ${action.dialog === 'accept' ? 'accepted' : 'dismissed'}.`;
  }
  if ('signUp' in action) return signUp(run, action.signUp);
  if ('logIn' in action) return logIn(run, action.logIn);
  if ('logOut' in action) {
    page.click({ role: 'button', name: 'Log out' });
    if (page.shows('Signed in as'))
      throw new StepFailed(`Clicked "Log out", but the page still says who is signed in. ${page.summary()}`);
    return 'Clicked "Log out"; nobody is signed in any more.';
  }
  if ('rememberPath' in action) {
    run.paths.set(action.rememberPath, page.pathAndQuery());
    return `Noted the address ${page.pathAndQuery()}.`;
  }
  const count = page.listItems(text(run, action.rememberCount))?.length ?? 0;
  run.counts.set(action.as, count);
  return `The list "${text(run, action.rememberCount)}" has ${count} item(s).`;
}

function expectedCount(run: CheckRun, is: CountIs): number {
  if ('equals' in is) return is.equals;
  const before = run.counts.get(is.remembered);
  if (before === undefined)
    throw new Error(`the check compares with the count "${is.remembered}" before taking it`);
  return before + is.plus;
}

function quoteItems(items: readonly string[]): string {
  return items.length
    ? items
        .slice(0, 8)
        .map((item) => `"${item}"`)
        .join(', ')
    : 'no items';
}

function judge(run: CheckRun, expectation: Expectation): string {
  const { page } = run;
  const fail = (evidence: string): never => {
    throw new StepFailed(`${evidence} ${page.summary()}`);
  };
  if ('see' in expectation) {
    const wanted = text(run, expectation.see);
    if (!page.shows(wanted)) fail(`Expected the page to show "${wanted}", but it does not.`);
    return `The page shows "${wanted}".`;
  }
  if ('notSee' in expectation) {
    const unwanted = text(run, expectation.notSee);
    if (page.shows(unwanted)) fail(`Expected "${unwanted}" to be gone, but the page still shows it.`);
    // Quotes are for text on the page; text that is gone is named without them.
    return `The page no longer shows ${unwanted}.`;
  }
  if ('path' in expectation) {
    const actual = page.pathAndQuery().split('?')[0] as string;
    const pattern = new RegExp(
      `^${text(run, expectation.path)
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[a-z]+/g, '[^/]+')}/?$`,
    );
    if (!pattern.test(actual)) fail(`Expected to be at ${expectation.path}, but the page is ${actual}.`);
    return `The address is now ${actual}.`;
  }
  if ('element' in expectation) {
    const wanted = target(run, expectation.element);
    const node = page.find(wanted);
    if (!node) fail(`Expected a ${describe(wanted)}, but there is none.`);
    if (expectation.state && !node?.states.includes(expectation.state)) {
      fail(
        `The ${describe(wanted)} is not ${expectation.state} (its states: ${node?.states.join(', ') || 'none'}).`,
      );
    }
    return `The page has the ${describe(wanted)}${expectation.state ? `, ${expectation.state}` : ''}.`;
  }
  if ('noElement' in expectation) {
    const unwanted = target(run, expectation.noElement);
    if (page.find(unwanted)) fail(`Expected no ${describe(unwanted)}, but the page has one.`);
    return `There is no ${unwanted.role} named ${unwanted.name} on the page.`;
  }
  if ('count' in expectation) {
    const name = text(run, expectation.count);
    const items = page.listItems(name) ?? [];
    const wanted = expectedCount(run, expectation.is);
    if (items.length !== wanted)
      fail(
        `Expected ${wanted} item(s) in the list "${name}", but it has ${items.length}: ${quoteItems(items)}.`,
      );
    return `The list "${name}" has ${items.length} item(s).`;
  }
  if ('list' in expectation) {
    const name = text(run, expectation.list);
    const items = page.listItems(name) ?? [];
    const has = expectation.has.map((entry) => text(run, entry));
    const lacks = expectation.lacks.map((entry) => text(run, entry));
    const missing = has.filter((entry) => !items.some((item) => item.includes(entry)));
    const extra = lacks.filter((entry) => items.some((item) => item.includes(entry)));
    if (missing.length)
      fail(`Expected the list "${name}" to show ${quoteItems(missing)}, but it shows ${quoteItems(items)}.`);
    if (extra.length)
      fail(
        `Expected ${extra.join(' and ')} to be gone from the list "${name}", but it shows ${quoteItems(items)}.`,
      );
    const absent = lacks.length ? ` and not ${lacks.join(' or ')}` : '';
    return `The list "${name}" shows ${quoteItems(has)}${absent}.`;
  }
  if ('order' in expectation) {
    const name = text(run, expectation.in);
    const wanted = expectation.order.map((entry) => text(run, entry));
    const items = page.listItems(name) ?? [];
    const positions = wanted.map((entry) => items.findIndex((item) => item.includes(entry)));
    const inOrder = positions.every(
      (position, index) => position >= 0 && (index === 0 || position > (positions[index - 1] as number)),
    );
    if (!inOrder)
      fail(
        `Expected ${quoteItems(wanted)} in this order in the list "${name}", but it shows ${quoteItems(items)}.`,
      );
    return `The list "${name}" shows ${quoteItems(wanted)} in this order.`;
  }
  const said = text(run, expectation.dialogSaid);
  const dialogs = page.takeDialogs();
  if (!dialogs.some((message) => message.includes(said))) {
    fail(
      `Expected a dialog saying "${said}"; dialogs seen: ${dialogs.length ? dialogs.map((d) => `"${d}"`).join(', ') : 'none'}.`,
    );
  }
  return `A dialog asked "${said}".`;
}

type FillAction = Extract<CheckAction, { fill: Target }>;
type ClickAction = Extract<CheckAction, { click: Target }>;

/** The form starting at `index`: fields typed into (the last may press Enter), then maybe a click; else empty. */
function formAt(actions: readonly CheckAction[], index: number): Array<FillAction | ClickAction> {
  const form: Array<FillAction | ClickAction> = [];
  for (const action of actions.slice(index)) {
    if ('fill' in action) {
      form.push(action);
      if (action.submit) break;
      continue;
    }
    if ('click' in action && form.length > 0) form.push(action);
    break;
  }
  return form.length > 1 ? form : [];
}

/** Fills a form in one reply (AppPage.fillForm); the evidence is what `perform` says of each action. */
function performForm(run: CheckRun, form: ReadonlyArray<FillAction | ClickAction>): string[] {
  const fields = form.flatMap((action) =>
    'fill' in action
      ? [{ target: target(run, action.fill), text: text(run, action.text), submit: action.submit }]
      : [],
  );
  const last = form[form.length - 1];
  const click = last && 'click' in last ? target(run, last.click) : undefined;
  run.page.fillForm(fields, click);
  const typed = fields.map(
    (field) =>
      `Typed "${field.text}" into the ${describe(field.target)}${field.submit ? ' and pressed Enter' : ''}.`,
  );
  return click ? [...typed, `Clicked the ${describe(click)}.`] : typed;
}

/** The step's actions, a form's fields and its button in one reply. */
function performAll(run: CheckRun, actions: readonly CheckAction[]): string[] {
  const done: string[] = [];
  for (let index = 0; index < actions.length; ) {
    const form = formAt(actions, index);
    if (form.length > 0) {
      done.push(...performForm(run, form));
      index += form.length;
    } else {
      done.push(perform(run, actions[index] as CheckAction));
      index += 1;
    }
  }
  return done;
}

function runStep(run: CheckRun, step: CheckStep): string {
  const done = performAll(run, step.do);
  const seen = step.expect.map((expectation) => judge(run, expectation));
  const evidence = [...done, ...seen].join(' ');
  // A step that only saw things gone quotes nothing; a grounded pass quotes the page, so say what it showed.
  return evidence.includes('"') ? evidence : `${evidence} ${run.page.summary()}`;
}

/** Runs a feature's browser check against the app at `baseUrl` and turns what happened into a verdict. */
export function runMealPlannerCheck(
  io: ScriptIO,
  baseUrl: string,
  featureId: string,
  feature: MealPlannerFeature,
  tag: string,
): SubmittedVerdictArgs {
  const steps = new StepRecorder(feature.steps);
  const run: CheckRun = { page: new AppPage(io, baseUrl), tag, paths: new Map(), counts: new Map() };
  try {
    feature.check.forEach((step, index) => {
      steps.run(index, () => runStep(run, step));
    });
    return { feature_id: featureId, verdict: 'pass', steps: steps.complete(), issues: [] };
  } catch (error) {
    if (error instanceof StepFailed) {
      return { feature_id: featureId, verdict: 'fail', steps: steps.complete(), issues: [error.message] };
    }
    if (error instanceof CheckBlocked) {
      return { feature_id: featureId, verdict: 'blocked', steps: steps.complete(), issues: [error.message] };
    }
    throw error;
  }
}
