/**
 * The meal-planner checks' hands and eyes, over the scripted io like the todo example's PageDriver: browser tool
 * calls, and the page as the last tool result showed it (its URL, the aria snapshot parsed, the dialogs it reported).
 * It adds what a multi-page app needs and PageDriver (fixed to one URL and the todo list) does not have: paths,
 * select, key presses, dialog answers, any list by name, and text anywhere on the page.
 */
import { CheckBlocked, failedResult, StepFailed } from '../evaluator-page.js';
import type { CallResult, ScriptIO } from '../script.js';
import { childrenOf, findNode, parseSnapshot, type SnapshotNode, snapshotText } from '../snapshot.js';
import type { Target } from './check-format.js';

function firstLines(text: string, count = 3): string {
  return text.trim().split('\n').slice(0, count).join(' ').slice(0, 400);
}

/** Undoes the snapshot's quoting so page text compares as the user reads it. */
function plain(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/**
 * The snapshot is YAML: an element line whose name holds ": " is written as a single-quoted key
 * (`- 'button "Remove Lunch: Soup" [ref=e5]': Remove`), which parseSnapshot does not read. Unquoted here.
 */
export function unquoteYamlKeys(snapshot: string): string {
  return snapshot.replace(
    /^(\s*- )'((?:[^']|'')*)'(?=:|$)/gm,
    (_line, lead: string, key: string) => `${lead}${key.replace(/''/g, "'")}`,
  );
}

/** One browser action planned from the current snapshot. */
interface PlannedAction {
  name: string;
  args: Record<string, unknown>;
  what: string;
  target: Target;
}

/** A browser page of the app, driven through browser tool calls. */
export class AppPage {
  private nodes: SnapshotNode[] = [];
  private snapshot = '';
  private currentUrl = '';
  private opened = false;
  /** Dialog messages reported since the last `takeDialogs`. */
  private dialogs: string[] = [];

  constructor(
    private readonly io: ScriptIO,
    /** The app's base URL from the evaluator's brief. */
    readonly base: string,
  ) {}

  /** Opens a path of the app; the first page that does not load blocks the check, a later one fails the step. */
  goto(pathAndQuery: string): void {
    const url = new URL(pathAndQuery, this.base).href;
    const result = this.io.call('browser_navigate', { url });
    if (failedResult(result)) {
      const reason = `The app did not load at ${url}: ${firstLines(result.content)}`;
      throw this.opened ? new StepFailed(reason) : new CheckBlocked(reason);
    }
    this.opened = true;
    this.observe(result);
  }

  /** Clicks the element. */
  click(target: Target): void {
    this.act('browser_click', {}, `click the ${describe(target)}`, target);
  }

  /** Replaces the field's value (and presses Enter when `submit`). */
  fill(target: Target, text: string, submit = false): void {
    this.act(
      'browser_type',
      { text, submit },
      `type ${JSON.stringify(text)} into the ${describe(target)}`,
      target,
    );
  }

  /** Chooses an option (by label or value) in a dropdown. */
  select(target: Target, option: string): void {
    this.act(
      'browser_select_option',
      { values: [option] },
      `select "${option}" in the ${describe(target)}`,
      target,
    );
  }

  /**
   * Fills a form in one reply, as a model does when the fields and the button are all on the snapshot it has: each
   * field typed into (the last with Enter when `submit`), then `click` pressed. Falls back to one action a reply
   * when some element is not on the current snapshot, or when an action in the reply went wrong.
   */
  fillForm(fields: ReadonlyArray<{ target: Target; text: string; submit?: boolean }>, click?: Target): void {
    const planned: PlannedAction[] = fields.map((field) => ({
      name: 'browser_type',
      args: { text: field.text, submit: field.submit === true },
      what: `type ${JSON.stringify(field.text)} into the ${describe(field.target)}`,
      target: field.target,
    }));
    if (click)
      planned.push({ name: 'browser_click', args: {}, what: `click the ${describe(click)}`, target: click });
    const refs = planned.map((action) => this.find(action.target)?.ref);
    if (planned.length < 2 || refs.some((ref) => ref === undefined)) {
      for (const action of planned) this.act(action.name, action.args, action.what, action.target);
      return;
    }
    const results = this.io.act(
      planned.map((action, index) => ({
        name: action.name,
        arguments: { ...action.args, ref: refs[index] },
      })),
    );
    const failedAt = results.findIndex((result) => failedResult(result));
    if (failedAt < 0) {
      for (const result of results) this.observe(result);
      return;
    }
    for (const result of results.slice(0, failedAt)) this.observe(result);
    const failed = planned[failedAt] as PlannedAction;
    const content = (results[failedAt] as CallResult).content;
    if (!/Timeout \d+ms exceeded/.test(content))
      throw new StepFailed(`Could not ${failed.what}: ${firstLines(content)}`);
    // A starved machine kept an element busy: look again, then do the rest one by one, as `act` does.
    const look = this.io.call('browser_snapshot', {});
    if (failedResult(look)) throw new StepFailed(`Could not ${failed.what}: ${firstLines(content)}`);
    this.observe(look);
    const rest = this.find(failed.target) ? planned.slice(failedAt) : planned.slice(failedAt + 1);
    for (const action of rest) this.act(action.name, action.args, action.what, action.target);
  }

  /** Presses a key on the focused element. */
  press(key: string): void {
    this.act('browser_press_key', { key }, `press ${key}`);
  }

  /** Decides how the next dialog is answered. */
  answerNextDialog(accept: boolean): void {
    const result = this.io.call('browser_handle_dialog', { accept });
    if (result.isError)
      throw new StepFailed(`Could not plan the dialog answer: ${firstLines(result.content)}`);
  }

  /**
   * Calls a browser tool, on the target's ref when there is one. An action that timed out (a starved machine keeps
   * an element busy past the tool's limit) is looked at again, as a person would before calling the app broken: a
   * new snapshot, and one more try if the element is still there; gone, the action went through and the page moved on.
   */
  private act(name: string, args: Record<string, unknown>, what: string, target?: Target): void {
    const withRef = () => (target ? { ...args, ref: this.ref(target) } : args);
    let result = this.io.call(name, withRef());
    if (failedResult(result) && target && /Timeout \d+ms exceeded/.test(result.content)) {
      const look = this.io.call('browser_snapshot', {});
      if (failedResult(look)) throw new StepFailed(`Could not ${what}: ${firstLines(result.content)}`);
      this.observe(look);
      if (!this.find(target)) return;
      result = this.io.call(name, withRef());
    }
    if (failedResult(result)) throw new StepFailed(`Could not ${what}: ${firstLines(result.content)}`);
    this.observe(result);
  }

  private observe(result: CallResult): void {
    this.snapshot = unquoteYamlKeys(snapshotText(result.content));
    this.nodes = parseSnapshot(this.snapshot);
    this.currentUrl = /^Page URL: (\S+)/m.exec(result.content)?.[1] ?? this.currentUrl;
    for (const match of result.content.matchAll(/^A \w+ dialog appeared: ("(?:[^"\\]|\\.)*")/gm)) {
      this.dialogs.push(JSON.parse(match[1] as string) as string);
    }
  }

  /** The page's path and query, e.g. `/recipes/4?scale=2`. */
  pathAndQuery(): string {
    const url = new URL(this.currentUrl || this.base);
    return `${url.pathname}${url.search}`;
  }

  /** The dialog messages seen since the last call. */
  takeDialogs(): string[] {
    const seen = this.dialogs;
    this.dialogs = [];
    return seen;
  }

  /** The element in the latest snapshot, or undefined. */
  find(target: Target): SnapshotNode | undefined {
    return findNode(this.nodes, target.role, target.name);
  }

  /** The element's ref, or a failed step saying what the page has instead. */
  ref(target: Target): string {
    const node = this.find(target);
    if (!node) throw new StepFailed(`The page has no ${describe(target)}. ${this.summary()}`);
    if (!node.ref) throw new StepFailed(`The ${describe(target)} has no ref in the snapshot.`);
    return node.ref;
  }

  /** Whether the text is on the page (a name, a text, or a line of the snapshot). */
  shows(text: string): boolean {
    return (
      this.nodes.some((node) => node.name?.includes(text) || node.text?.includes(text)) ||
      plain(this.snapshot).includes(text)
    );
  }

  /**
   * The items of the list with this name, each as the user reads it: its own text and the names and texts of what
   * is inside it (a link's name, a note beside it), joined by spaces; undefined when there is no such list.
   */
  listItems(name: string): string[] | undefined {
    const list = findNode(this.nodes, 'list', name);
    if (!list) return undefined;
    const inside = childrenOf(this.nodes, list);
    const depth = Math.min(...inside.filter((node) => node.role === 'listitem').map((node) => node.indent));
    return inside
      .filter((node) => node.role === 'listitem' && node.indent === depth)
      .map((item) =>
        [item.text, ...childrenOf(this.nodes, item).map((node) => node.name ?? node.text)]
          .filter((part): part is string => Boolean(part))
          .join(' '),
      );
  }

  /** A short description of the page, for evidence. */
  summary(): string {
    const heading = this.nodes.find((node) => node.role === 'heading');
    const alert = this.nodes.find((node) => node.role === 'alert');
    const names = this.nodes
      .filter((node) => node.ref && ['button', 'link', 'textbox', 'combobox', 'checkbox'].includes(node.role))
      .slice(0, 12)
      .map((node) => `${node.role} "${node.name ?? ''}"`);
    const parts = [`The page is ${this.pathAndQuery()}`];
    if (heading) parts.push(`its heading says "${heading.name ?? heading.text ?? ''}"`);
    if (alert) parts.push(`an alert says "${firstLines(this.alertText(alert), 2)}"`);
    return `${parts.join('; ')}; elements: ${names.join(', ') || 'none'}.`;
  }

  private alertText(alert: SnapshotNode): string {
    return [alert.text, ...childrenOf(this.nodes, alert).map((node) => node.text ?? node.name)]
      .filter(Boolean)
      .join(' ');
  }
}

/** `button "Save recipe"`. */
export function describe(target: Target): string {
  return `${target.role} "${target.name}"`;
}
