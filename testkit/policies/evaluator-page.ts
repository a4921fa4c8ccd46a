/**
 * The scripted evaluator's hands and eyes: browser tool calls through the script io, the latest aria
 * snapshot parsed, and a step recorder that turns observations into verdict steps. Anything unexpected
 * (an element missing, an action refused) fails the step with what the page showed: never a made-up pass.
 */
import type { CallResult, ScriptIO } from './script.js';
import { findNode, listItemTexts, parseSnapshot, type SnapshotNode, snapshotText } from './snapshot.js';

/** One checked step as `submit_verdict` takes it (the shape of handoff's VerdictStep). */
export interface VerdictStep {
  step: string;
  ok: boolean;
  evidence: string;
}

/** A step's expectation did not hold; the message is the evidence (what the page showed). */
export class StepFailed extends Error {
  constructor(evidence: string) {
    super(evidence);
    this.name = 'StepFailed';
  }
}

/** The check could not run at all (the app did not load, the browser failed). */
export class CheckBlocked extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CheckBlocked';
  }
}

/** Name of the todo list in the example app. */
export const TODO_LIST = 'Todos';

/**
 * Whether a browser tool call failed. Every browser tool that succeeds sends the page's snapshot back; the OpenAI
 * wire has no error flag on tool results (only Anthropic's `is_error`), so a result without a snapshot is the
 * tool's error message, not a page to decide from.
 */
export function failedResult(result: CallResult): boolean {
  return result.isError || !result.content.includes('\nSnapshot:\n');
}

function firstLines(text: string, count = 3): string {
  return text.trim().split('\n').slice(0, count).join(' ').slice(0, 400);
}

/** Drives the browser tools and keeps the page as the last tool result showed it. */
export class PageDriver {
  private nodes: SnapshotNode[] = [];

  constructor(
    private readonly io: ScriptIO,
    /** The app URL from the evaluator's brief. */
    readonly url: string,
  ) {}

  /** Opens (or reloads) the app; a page that does not load blocks the check. */
  open(): void {
    const result = this.io.call('browser_navigate', { url: this.url });
    if (failedResult(result))
      throw new CheckBlocked(`The app did not load at ${this.url}: ${firstLines(result.content)}`);
    this.observe(result);
  }

  /** Clicks the element with this ref. */
  click(ref: string, what: string): void {
    this.act([{ name: 'browser_click', arguments: { ref } }], `click ${what}`);
  }

  /** Types each text into its element (several fields or several submissions in one reply). */
  typeAll(entries: Array<{ ref: string; text: string; submit: boolean }>): void {
    this.act(
      entries.map((entry) => ({ name: 'browser_type', arguments: entry })),
      `type ${entries.map((entry) => JSON.stringify(entry.text)).join(', ')}`,
    );
  }

  private act(calls: Array<{ name: string; arguments: Record<string, unknown> }>, what: string): void {
    const results = this.io.act(calls);
    for (const result of results) {
      if (failedResult(result)) throw new StepFailed(`Could not ${what}: ${firstLines(result.content)}`);
      this.observe(result);
    }
  }

  private observe(result: CallResult): void {
    this.nodes = parseSnapshot(snapshotText(result.content));
  }

  /** The element with this role and name in the latest snapshot, or a failed step saying it is missing. */
  node(role: string, name: string): SnapshotNode {
    const node = findNode(this.nodes, role, name);
    if (!node) throw new StepFailed(`The page has no ${role} named "${name}". ${this.summary()}`);
    return node;
  }

  /** The ref of that element. */
  ref(role: string, name: string): string {
    const node = this.node(role, name);
    if (!node.ref) throw new StepFailed(`The ${role} "${name}" has no ref in the snapshot.`);
    return node.ref;
  }

  /** Whether an element with this role and name is on the page. */
  has(role: string, name: string): boolean {
    return findNode(this.nodes, role, name) !== undefined;
  }

  /** The texts of the items of the list with this name (the todo list by default), in order. */
  items(listName = TODO_LIST): string[] {
    const texts = listItemTexts(this.nodes, listName);
    if (!texts) throw new StepFailed(`The page has no list named "${listName}". ${this.summary()}`);
    return texts;
  }

  /** Whether some element of the page shows this text (in its text or its name). */
  shows(text: string): boolean {
    return this.nodes.some((node) => node.text?.includes(text) || node.name?.includes(text));
  }

  /** Waits until the page shows the text (`browser_wait_for`, at most `timeMs`); a page that never does fails the step. */
  waitFor(text: string, timeMs?: number): void {
    const result = this.io.call(
      'browser_wait_for',
      timeMs === undefined ? { text } : { text, time_ms: timeMs },
    );
    if (failedResult(result))
      throw new StepFailed(`The page never showed "${text}": ${firstLines(result.content)}`);
    this.observe(result);
  }

  /** Waits until the page no longer shows the text (`browser_wait_for` with `text_gone`); a page that still does fails the step. */
  waitGone(text: string, timeMs: number): void {
    const result = this.io.call('browser_wait_for', { text_gone: text, time_ms: timeMs });
    if (failedResult(result))
      throw new StepFailed(`The page still showed "${text}": ${firstLines(result.content)}`);
    this.observe(result);
  }

  /**
   * Looks once more, as a careful person does before calling something broken, unless `holds` already does:
   * waits `waitMs` and takes a new snapshot. A slow re-render then costs time, not a false fail; a page that
   * stays wrong is judged as it stays. One look only: every snapshot grows the session's context, and past the
   * harness's elision threshold a replayed script no longer sees what it decided on.
   */
  lookAgainUnless(holds: () => boolean, waitMs = 2_000): void {
    if (holds()) return;
    const result = this.io.call('browser_wait_for', { time_ms: waitMs });
    if (!failedResult(result)) this.observe(result);
  }

  /** Text of the first element with this role (e.g. the status line), or a failed step. */
  textOf(role: string): string {
    const node = this.nodes.find((candidate) => candidate.role === role);
    if (!node) throw new StepFailed(`The page has no ${role} element. ${this.summary()}`);
    return node.text ?? '';
  }

  /** A short description of what the page shows, for evidence. */
  summary(): string {
    const texts = listItemTexts(this.nodes, TODO_LIST);
    const listPart = texts ? `${texts.length} item(s) in the list` : 'no todo list';
    const names = this.nodes
      .filter((node) => node.ref && ['button', 'textbox', 'checkbox', 'status'].includes(node.role))
      .slice(0, 8)
      .map((node) => `${node.role}${node.name ? ` "${node.name}"` : ''}${node.text ? `: ${node.text}` : ''}`);
    return `The page shows ${listPart}; elements: ${names.join(', ') || 'none'}.`;
  }
}

/** Collects verdict steps; `run` records a step as passed with its evidence, or failed with the failure's. */
export class StepRecorder {
  readonly results: VerdictStep[] = [];

  constructor(private readonly steps: readonly string[]) {}

  /** Performs step `index` (0-based): `body` returns the evidence, or throws StepFailed. */
  run(index: number, body: () => string): void {
    const step = this.steps[index] ?? `step ${index + 1}`;
    try {
      this.results.push({ step, ok: true, evidence: body() });
    } catch (error) {
      const evidence = error instanceof Error ? error.message : String(error);
      if (error instanceof StepFailed) this.results.push({ step, ok: false, evidence });
      throw error;
    }
  }

  /** The recorded steps plus the ones never reached, marked as not performed. */
  complete(): VerdictStep[] {
    const failedAt = this.results.findIndex((result) => !result.ok);
    const missing = this.steps.slice(this.results.length).map((step) => ({
      step,
      ok: false,
      evidence: `Not performed: ${failedAt >= 0 ? `step ${failedAt + 1} failed first` : 'the check stopped early'}.`,
    }));
    return [...this.results, ...missing];
  }
}

/** Throws a failed step unless the condition holds. */
export function expect(condition: boolean, evidence: string): void {
  if (!condition) throw new StepFailed(evidence);
}
