import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { InputError, NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import { formatZodIssues } from '../core/zod-issues.js';
import { FeatureId } from '../handoff/formats.js';
import { ResumeRefusedError } from '../orchestrator/controls.js';
import { AddRefusedError } from '../orchestrator/feature-add.js';
import { RUN_ID_PATTERN } from '../orchestrator/keys.js';
import { loadLanesView, withMerges } from '../orchestrator/lanes/lane-view.js';
import { QuestionAnsweredError, QuestionNotFoundError } from '../orchestrator/questions.js';
import {
  FeatureNotFoundError,
  RunNotFoundError,
  type RunStore,
  RunTransitionError,
} from '../orchestrator/run/index.js';
import { SteerRefusedError, type SteerRequest } from '../orchestrator/steering.js';
import { FeatureWriterFailedError } from '../roles/feature-writer.js';
import { runActivity } from './activity.js';
import type {
  AddFeatureResponse,
  QuestionsResponse,
  RunResponse,
  RunsResponse,
  SessionsResponse,
} from './api-types.js';
import { checksView } from './checks-view.js';
import type { RunControls } from './controls.js';
import { featureDetail } from './feature-detail.js';
import { RetryRefusedError, retryRefusal } from './retry.js';
import { DASHBOARD_ACTOR, SteerBody, type SteerFeature, storeSteer } from './steering.js';
import { loadRunStory } from './story-load.js';
import { readTranscriptPage } from './transcripts.js';
import {
  type NextScheduledStart,
  ProgressCache,
  RunEventDigestCache,
  toFeatureView,
  toGridResponse,
  toRunView,
} from './views.js';

const log = moduleLogger('dashboard/api');

/** Response header of run reads: the newest event id already reflected in the answer (`0-0` = none). */
export const LAST_EVENT_HEADER = 'X-Nightshift-Last-Event';

/** Path parameter `:id`. */
export const RunIdParam = z.string().regex(RUN_ID_PATTERN, 'run ids use letters, digits, - and _');
/** Path parameter `:seq`. */
export const SeqParam = z.coerce.number().int().nonnegative();

/** `?offset&limit` of a paged list (limit capped at `max`). */
export function pageQuery(defaultLimit: number, max: number) {
  return z.object({
    offset: z.coerce.number().int().nonnegative().default(0),
    limit: z.coerce.number().int().min(1).max(max).default(defaultLimit),
  });
}

/** A request parameter or query that does not validate (HTTP 400). */
export class BadRequestError extends InputError {
  constructor(what: string, detail: string) {
    super('DASHBOARD_BAD_REQUEST', `Invalid ${what}: ${detail}`, {
      hint: 'See the HTTP API in docs/dashboard.md.',
    });
  }
}

/** A resource that does not exist (HTTP 404). */
export class NotFoundError extends InputError {
  constructor(message: string) {
    super('DASHBOARD_NOT_FOUND', message);
  }
}

/** Validates `value` against `schema`, throwing BadRequestError naming `what`. */
export function parseParam<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new BadRequestError(what, formatZodIssues(result.error.issues, { input: value, schema }));
  return result.data;
}

/** Maps errors to JSON responses: 400 bad input, 404 unknown run/feature/file, 409 illegal transition, 500 otherwise. */
export function errorResponse(error: unknown, c: Context): Response {
  if (
    error instanceof RunNotFoundError ||
    error instanceof FeatureNotFoundError ||
    error instanceof NotFoundError ||
    error instanceof QuestionNotFoundError
  ) {
    return c.json({ error: 'not_found', message: error.message }, 404);
  }
  if (
    error instanceof RunTransitionError ||
    error instanceof RetryRefusedError ||
    error instanceof ResumeRefusedError ||
    error instanceof SteerRefusedError ||
    error instanceof AddRefusedError ||
    error instanceof QuestionAnsweredError
  )
    return c.json({ error: 'conflict', message: error.describe() }, 409);
  if (error instanceof FeatureWriterFailedError)
    return c.json({ error: 'not_added', message: error.describe() }, 422);
  if (error instanceof AddUnavailableError)
    return c.json({ error: 'unavailable', message: error.describe() }, 503);
  if (error instanceof NightshiftError && error.exitCode === 2) {
    return c.json({ error: 'bad_request', message: error.describe() }, 400);
  }
  log.error({ err: error, path: c.req.path }, 'dashboard request failed');
  return c.json({ error: 'internal', message: 'Internal error; see the dashboard log.' }, 500);
}

/** An add on a dashboard that has no model to write the feature with (HTTP 503). */
export class AddUnavailableError extends NightshiftError {
  constructor() {
    super('FEATURE_ADD_UNAVAILABLE', 'This dashboard cannot add features: it was started without a model.', {
      hint: 'Add it with `nightshift add RUN "…"`, or through a dashboard started by `nightshift dashboard`.',
    });
  }
}

/** What the API routes need. */
export interface ApiDeps {
  store: RunStore;
  controls: RunControls;
  dataDir: string;
  nextScheduledStart?: NextScheduledStart;
  /** Workers connected to the session queue (null: unknown); default: unknown. */
  connectedWorkers?: () => Promise<number | null>;
}

/** The JSON API under `/api` (SSE and evidence are mounted separately). */
export function apiRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  const digests = new RunEventDigestCache(deps.store);
  const runResponse = runResponseLoader(deps, digests);
  stampLastEvent(app, deps.store);
  addRunReadRoutes(app, deps, runResponse);
  // The story's nightly summary comes from the same digest as the run answer's: one scan of new events for both.
  app.get('/runs/:id/story', async (c) =>
    c.json(
      await loadRunStory(
        deps.store,
        runIdOf(c),
        new Date(),
        async (id) => (await digests.get(id)).nightlySummary,
      ),
    ),
  );
  addSessionRoutes(app, deps);
  addControlRoutes(app, deps, runResponse);
  addSteerRoutes(app, deps.store, deps.controls.steer ?? storeSteer(deps.store));
  addFeatureRoute(app, deps);
  return app;
}

/** Loads the full answer about one run (`GET /runs/:id` and the controls' answers). */
type RunResponseLoader = (id: string) => Promise<RunResponse>;

/** The `:id` path parameter, validated. */
function runIdOf(c: Context): string {
  return parseParam(RunIdParam, c.req.param('id'), 'run id');
}

/** The connected-worker count, or unknown when the deps have no way to tell. */
function workersOf(deps: ApiDeps): () => Promise<number | null> {
  return deps.connectedWorkers ?? (async () => null);
}

/** The next scheduled start of a run, or none when the deps have no schedule. */
function nextStartOf(deps: ApiDeps): NextScheduledStart {
  return deps.nextScheduledStart ?? (async () => null);
}

/** A loader of run answers reading the event log through `digests`. */
function runResponseLoader(deps: ApiDeps, digests: RunEventDigestCache): RunResponseLoader {
  const { store } = deps;
  const next = nextStartOf(deps);
  const workers = workersOf(deps);
  return async (id) => {
    const run = await store.getRun(id);
    const [nextAt, digest, activity, lanes, connected] = await Promise.all([
      next(id),
      digests.get(id),
      runActivity(store, run),
      loadLanesView(store, run),
      workers(),
    ]);
    return {
      run: toRunView(run, nextAt, connected),
      nightlySummary: digest.nightlySummary,
      activity,
      lanes: lanes && withMerges(lanes, digest.recentMerges),
    };
  };
}

/** Stamps every run read with LAST_EVENT_HEADER. */
function stampLastEvent(app: Hono, store: RunStore): void {
  // The newest event id read BEFORE the state: everything up to it is in the answer, so a client holding the
  // event stream knows which events it still has to refresh for.
  const stamp = async (c: Context, next: () => Promise<void>) => {
    const id = RunIdParam.safeParse(c.req.param('id'));
    const latest = id.success ? await store.readEvents(id.data, { latest: true, count: 1 }) : [];
    await next();
    c.header(LAST_EVENT_HEADER, latest[0]?.id ?? '0-0');
  };
  app.get('/runs/:id', stamp);
  app.get('/runs/:id/*', stamp);
}

/** `GET /runs`, `/runs/:id` and the run's features, grid, feature detail, checks and progress. */
function addRunReadRoutes(app: Hono, deps: ApiDeps, runResponse: RunResponseLoader): void {
  const { store } = deps;
  const progress = new ProgressCache(store);
  const next = nextStartOf(deps);
  const workers = workersOf(deps);
  app.get('/runs', async (c) => {
    const [runs, connected] = await Promise.all([store.listRuns(), workers()]);
    const views = await Promise.all(runs.map(async (run) => toRunView(run, await next(run.id), connected)));
    return c.json({ runs: views } satisfies RunsResponse);
  });
  app.get('/runs/:id', async (c) => c.json(await runResponse(runIdOf(c))));
  app.get('/runs/:id/features', async (c) => {
    const id = runIdOf(c);
    const features = await store.listFeatures(id);
    if (features.length === 0) await store.getRun(id);
    return c.json({ features: features.map(toFeatureView) });
  });
  app.get('/runs/:id/grid', async (c) => {
    const id = runIdOf(c);
    const features = await store.listFeatures(id);
    if (features.length === 0) await store.getRun(id);
    return c.json(toGridResponse(features));
  });
  app.get('/runs/:id/features/:featureId', async (c) => {
    const run = await store.getRun(runIdOf(c));
    const featureId = parseParam(FeatureId, c.req.param('featureId'), 'feature id');
    const detail = await featureDetail(store, run, featureId);
    if (!detail) throw new FeatureNotFoundError(run.id, featureId);
    return c.json(detail);
  });
  app.get('/runs/:id/checks', async (c) =>
    c.json(await checksView(await store.getRun(runIdOf(c)), deps.dataDir)),
  );
  app.get('/runs/:id/progress', async (c) => c.json(await progress.get(await store.getRun(runIdOf(c)))));
  app.get('/runs/:id/questions', async (c) => {
    const run = await store.getRun(runIdOf(c));
    return c.json({ questions: run.questions } satisfies QuestionsResponse);
  });
}

/** `POST /runs/:id/questions/:qid/answer`: `{ answer, by? }` (by: `dashboard` from its page, else `api`). */
export const AnswerRequest = z.strictObject({
  answer: z.string().trim().min(1, 'the answer is empty').max(4_000),
  by: z.enum(['dashboard', 'api']).default('api'),
});
export type AnswerRequest = z.infer<typeof AnswerRequest>;

/** Path parameter `:qid`. */
export const QuestionIdParam = z.string().regex(/^Q-\d+$/, 'question ids look like Q-1');

/** `GET /runs/:id/sessions` and a session's transcript. */
function addSessionRoutes(app: Hono, deps: ApiDeps): void {
  const { store } = deps;
  app.get('/runs/:id/sessions', async (c) => {
    const id = runIdOf(c);
    const { offset, limit } = parseParam(pageQuery(50, 500), c.req.query(), 'page');
    const page = await store.listSessions(id, { offset, limit, order: 'desc' });
    if (page.total === 0) await store.getRun(id);
    return c.json({ total: page.total, offset, limit, sessions: page.sessions } satisfies SessionsResponse);
  });
  app.get('/runs/:id/sessions/:seq/transcript', async (c) => {
    const id = runIdOf(c);
    const seq = parseParam(SeqParam, c.req.param('seq'), 'session number');
    const page = parseParam(pageQuery(200, 2000), c.req.query(), 'page');
    const transcript = await readTranscriptPage(deps.dataDir, id, seq, page);
    if (!transcript) {
      await store.getRun(id);
      throw new NotFoundError(`Session ${seq} of run ${id} has no transcript.`);
    }
    return c.json(transcript);
  });
}

/** `POST /runs/:id/{pause,resume,cancel}` and a feature's retry. */
function addControlRoutes(app: Hono, deps: ApiDeps, runResponse: RunResponseLoader): void {
  const { store, controls } = deps;
  for (const action of ['pause', 'resume', 'cancel'] as const) {
    app.post(`/runs/:id/${action}`, async (c) => {
      const id = runIdOf(c);
      await store.getRun(id);
      await controls[action](id);
      return c.json(await runResponse(id));
    });
  }
  app.post('/runs/:id/features/:featureId/retry', async (c) => {
    const run = await store.getRun(runIdOf(c));
    const featureId = parseParam(FeatureId, c.req.param('featureId'), 'feature id');
    const feature = (await store.listFeatures(run.id)).find((f) => f.id === featureId);
    if (!feature) throw new FeatureNotFoundError(run.id, featureId);
    const refusal = retryRefusal(run, feature);
    if (refusal) throw new RetryRefusedError(run.id, featureId, refusal);
    await controls.retryFeature(run.id, featureId);
    return c.json({ ok: true });
  });
  app.post('/runs/:id/questions/:qid/answer', async (c) => {
    const id = runIdOf(c);
    const questionId = parseParam(QuestionIdParam, c.req.param('qid'), 'question id');
    const body = parseParam(AnswerRequest, await c.req.json().catch(() => null), 'answer');
    await controls.answerQuestion(id, questionId, body.answer, body.by);
    const run = await deps.store.getRun(id);
    return c.json({ question: run.questions.find((question) => question.id === questionId) });
  });
}

/** `POST /runs/:id/features/:featureId/{note,reopen,unblock}`: `{text}`, `{reason}`, `{note?}`; answers `{ ok: true }`. */
function addSteerRoutes(app: Hono, store: RunStore, steer: SteerFeature): void {
  for (const action of ['note', 'reopen', 'unblock'] as const) {
    app.post(`/runs/:id/features/:featureId/${action}`, async (c) => {
      const runId = runIdOf(c);
      const featureId = parseParam(FeatureId, c.req.param('featureId'), 'feature id');
      const body = parseParam(SteerBody, await c.req.json().catch(() => ({})), 'request body');
      await store.getRun(runId);
      await steer(runId, featureId, { action, ...body } as SteerRequest, DASHBOARD_ACTOR);
      return c.json({ ok: true });
    });
  }
}

/** `POST /runs/:id/features`: `{ description, by? }` (by: `dashboard` from its page, else `api`); answers 201 with the feature. */
export const AddFeatureRequest = z.strictObject({
  description: z.string(),
  by: z.enum(['dashboard', 'api']).default('api'),
});

function addFeatureRoute(app: Hono, deps: ApiDeps): void {
  app.post('/runs/:id/features', async (c) => {
    const id = runIdOf(c);
    const body = parseParam(AddFeatureRequest, await c.req.json().catch(() => null), 'request body');
    await deps.store.getRun(id);
    if (!deps.controls.addFeature) throw new AddUnavailableError();
    const feature = await deps.controls.addFeature(id, body.description, body.by);
    const { id: featureId, description, steps } = feature;
    const added: AddFeatureResponse = {
      feature: { id: featureId, description, steps, dependsOn: feature.depends_on ?? [] },
    };
    return c.json(added, 201);
  });
}
