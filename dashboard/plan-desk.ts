/**
 * The new-run form's planner sessions, held in memory by the dashboard process: each one runs the planner in
 * the background, parks on `ask_user` until the browser sends the answers, and keeps the spec until the
 * person starts a run with it (through the orchestrator's start function) or leaves. Bounded: a few plans in
 * flight at once, and plans idle for an hour are dropped (an open planner session is cancelled).
 */
import { randomBytes } from 'node:crypto';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { RunRecord } from '../orchestrator/run/index.js';
import type { PlannerResult } from '../roles/planner.js';
import type { AskUser } from '../roles/planner-tools.js';
import type { ChoiceCheckResponse, PlanState, PlanView, RunChoice } from './api-types.js';

const log = moduleLogger('dashboard/plan-desk');

/** What the dashboard needs to plan and to start runs; the CLI wires the configured model and orchestrator. */
export interface PlanningService {
  /** The planner's model id when the form does not choose one (shown in the form). */
  model: string;
  /** Questions the planner may ask in all (shown in the form). */
  maxQuestions: number;
  /** The form's choice before the person changes it (the configured defaults). */
  defaults: RunChoice;
  /** Models to suggest (known, not retired). */
  models: string[];
  /** Whether a run can start with `choice`: its model, key, budget, lanes and workspace, before any idea is typed. */
  check(choice: RunChoice): Promise<ChoiceCheckResponse>;
  /** Runs one planner session with the chosen model; rejects with the reason when it produced no spec. */
  plan(input: {
    planId: string;
    prompt: string;
    ask: AskUser;
    signal: AbortSignal;
    choice: RunChoice;
  }): Promise<PlannerResult>;
  /** Starts a run on a plan's spec (as the person left it) with the plan as its origin, as chosen. */
  startRun(input: { plan: PlannerResult; spec: string; choice: RunChoice }): Promise<RunRecord>;
}

/** A plan id, a plan in the wrong state for the request, or too many plans (HTTP 404, 409 or 429). */
export class PlanRequestError extends NightshiftError {
  constructor(
    readonly status: 404 | 409 | 429,
    message: string,
    hint?: string,
  ) {
    super('PLAN_REQUEST', message, { ...(hint ? { hint } : {}), exitCode: 2 });
  }
}

/** Bounds of the desk. */
export interface PlanDeskOptions {
  /** Plans planning or waiting for answers at once (default 3). */
  maxActive?: number;
  /** Plans kept at all (default 50). */
  maxKept?: number;
  /** A plan untouched this long is dropped (default 1 hour). */
  idleMs?: number;
  clock?: () => number;
}

interface Entry {
  view: PlanView;
  /** The run's model, budget, lanes and workspace, as chosen when the plan was made. */
  choice: RunChoice;
  controller: AbortController;
  touchedAt: number;
  result?: PlannerResult;
  pendingAnswers?: (answers: string[]) => void;
  waiters: Set<() => void>;
}

const ACTIVE: ReadonlySet<PlanState> = new Set(['planning', 'asking', 'starting']);

/** Longest answer accepted, in characters. */
export const MAX_ANSWER_CHARS = 2_000;

/** The planner sessions of one dashboard process. */
export class PlanDesk {
  private readonly plans = new Map<string, Entry>();
  private readonly maxActive: number;
  private readonly maxKept: number;
  private readonly idleMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly service: PlanningService,
    options: PlanDeskOptions = {},
  ) {
    this.maxActive = options.maxActive ?? 3;
    this.maxKept = options.maxKept ?? 50;
    this.idleMs = options.idleMs ?? 3_600_000;
    this.clock = options.clock ?? Date.now;
  }

  /** Model and bounds of the planner, the form's defaults and the models to suggest. */
  get info() {
    const { model, maxQuestions, defaults, models } = this.service;
    return { model, maxQuestions, defaults, models };
  }

  /** Checks a choice (model, key, budget, lanes, workspace) before any plan exists. */
  check(choice: RunChoice): Promise<ChoiceCheckResponse> {
    return this.service.check(choice);
  }

  /** Starts a planner session on `prompt` with `choice` (both already checked by the caller); its first view. */
  create(prompt: string, choice: RunChoice = this.service.defaults): PlanView {
    this.sweep();
    const active = [...this.plans.values()].filter((entry) => ACTIVE.has(entry.view.state)).length;
    if (active >= this.maxActive || this.plans.size >= this.maxKept) {
      throw new PlanRequestError(
        429,
        `${active} plans are in progress already; this dashboard plans ${this.maxActive} at once.`,
        'Finish or discard one, then try again.',
      );
    }
    const id = `p-${this.clock().toString(36)}${randomBytes(3).toString('hex')}`;
    const entry: Entry = {
      view: {
        id,
        prompt,
        model: choice.model,
        state: 'planning',
        version: 1,
        questions: [],
        exchanges: [],
        spec: null,
        costUsd: null,
        error: null,
        runId: null,
      },
      choice,
      controller: new AbortController(),
      touchedAt: this.clock(),
      waiters: new Set(),
    };
    this.plans.set(id, entry);
    void this.run(entry);
    return { ...entry.view };
  }

  private async run(entry: Entry): Promise<void> {
    const ask: AskUser = (questions, signal) =>
      new Promise<string[]>((resolve, reject) => {
        const onAbort = () => reject(signal.reason ?? new Error('cancelled'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        entry.pendingAnswers = (answers) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answers);
        };
        this.change(entry, { state: 'asking', questions: [...questions] });
      });
    try {
      const result = await this.service.plan({
        planId: entry.view.id,
        prompt: entry.view.prompt,
        ask,
        signal: entry.controller.signal,
        choice: entry.choice,
      });
      entry.result = result;
      this.change(entry, {
        state: 'ready',
        questions: [],
        exchanges: result.exchanges,
        spec: result.spec,
        costUsd: result.costUsd,
      });
    } catch (error) {
      const message = error instanceof NightshiftError ? error.describe() : (error as Error).message;
      log.warn({ planId: entry.view.id, err: error }, 'planning failed');
      this.change(entry, { state: 'failed', questions: [], error: message });
    }
  }

  private change(entry: Entry, patch: Partial<PlanView>): void {
    entry.view = { ...entry.view, ...patch, version: entry.view.version + 1 };
    entry.touchedAt = this.clock();
    for (const wake of entry.waiters) wake();
    entry.waiters.clear();
  }

  private entry(id: string): Entry {
    const entry = this.plans.get(id);
    if (!entry) {
      throw new PlanRequestError(
        404,
        `No plan ${id} on this dashboard.`,
        'Plans live in the dashboard process: start a new one.',
      );
    }
    entry.touchedAt = this.clock();
    return entry;
  }

  /** The plan's view once its version is past `after` (or after `waitMs`, whichever comes first). */
  async get(id: string, after = 0, waitMs = 0): Promise<PlanView> {
    const entry = this.entry(id);
    if (entry.view.version <= after && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        function done() {
          clearTimeout(timer);
          entry.waiters.delete(done);
          resolve();
        }
        entry.waiters.add(done);
      });
    }
    return { ...entry.view };
  }

  /** Answers the questions the plan waits on (one answer per question, `''` for none). */
  answer(id: string, answers: readonly string[]): PlanView {
    const entry = this.entry(id);
    if (entry.view.state !== 'asking' || !entry.pendingAnswers) {
      throw new PlanRequestError(409, `Plan ${id} is ${entry.view.state}, not waiting for answers.`);
    }
    if (answers.length !== entry.view.questions.length) {
      throw new InputError(
        'PLAN_ANSWERS_INVALID',
        `Expected ${entry.view.questions.length} answers, got ${answers.length}.`,
        { hint: 'Send one answer per question; an empty one lets the planner decide.' },
      );
    }
    const resolve = entry.pendingAnswers;
    entry.pendingAnswers = undefined;
    this.change(entry, { state: 'planning', questions: [] });
    resolve(answers.map((answer) => answer.trim()));
    return { ...entry.view };
  }

  /** Starts a run on the plan with `spec` (the planner's, or the person's edit); once per plan. */
  async start(id: string, spec: string): Promise<PlanView> {
    const entry = this.entry(id);
    if (entry.view.state !== 'ready' || !entry.result) {
      throw new PlanRequestError(
        409,
        `Plan ${id} is ${entry.view.state}; a run starts only from a finished spec.`,
      );
    }
    this.change(entry, { state: 'starting', error: null });
    try {
      const run = await this.service.startRun({ plan: entry.result, spec, choice: entry.choice });
      this.change(entry, { state: 'started', runId: run.id });
    } catch (error) {
      const message = error instanceof NightshiftError ? error.describe() : (error as Error).message;
      this.change(entry, { state: 'ready', error: message });
      throw error;
    }
    return { ...entry.view };
  }

  /** Cancels a plan (its planner session, if one is open) and forgets it. */
  discard(id: string): void {
    const entry = this.entry(id);
    entry.controller.abort(new Error('discarded from the dashboard'));
    this.plans.delete(id);
    for (const wake of entry.waiters) wake();
  }

  private sweep(): void {
    const now = this.clock();
    for (const [id, entry] of this.plans) {
      if (now - entry.touchedAt < this.idleMs || entry.view.state === 'starting') continue;
      entry.controller.abort(new Error('idle for too long'));
      this.plans.delete(id);
    }
  }

  /** Cancels every open planner session (the dashboard is closing). */
  close(): void {
    for (const entry of this.plans.values()) entry.controller.abort(new Error('the dashboard is closing'));
    this.plans.clear();
  }
}
