import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { InputError } from '../core/errors.js';
import { describeIssue } from '../core/zod-issues.js';
import { MAX_LANES } from '../orchestrator/lanes/lanes.js';
import { MAX_SPEC_BYTES } from '../orchestrator/start-run.js';
import { checkPlannerPrompt } from '../roles/planner.js';
import { errorResponse, parseParam } from './api.js';
import type { ChoiceCheckResponse, PlanningInfoResponse, RunChoice } from './api-types.js';
import { MAX_ANSWER_CHARS, type PlanDesk, PlanRequestError } from './plan-desk.js';

/** Longest a `GET /api/plans/:id?after=` waits for a change. */
export const PLAN_WAIT_MS = 20_000;

const PlanIdParam = z.string().regex(/^p-[a-z0-9]{1,40}$/, 'plan ids look like p-…');

/** The form's choice for the run: checked here for shape, by the planning service for what it means. */
export const RunChoiceBody = z.strictObject({
  model: z.string().trim().min(1),
  budgetUsd: z.number().positive().nullable(),
  lanes: z.number().int().min(1).max(MAX_LANES),
  workspace: z.string().trim().min(1).nullable(),
});
export type RunChoiceBody = z.infer<typeof RunChoiceBody>;

const CreateBody = z.strictObject({ prompt: z.string(), choice: RunChoiceBody.optional() });

/** How the form names its fields in a message. */
const FIELD_LABELS: Record<keyof RunChoice, string> = {
  model: 'Model',
  budgetUsd: 'Budget',
  lanes: 'Lanes',
  workspace: 'Workspace',
};

/** A choice that does not even have the right shape, as the form shows it: one note per field, for a person. */
function shapeProblems(issues: ReadonlyArray<z.core.$ZodIssue>, input: unknown): ChoiceCheckResponse {
  const fieldOf = (key: PropertyKey | undefined): keyof RunChoice =>
    typeof key === 'string' && key in FIELD_LABELS ? (key as keyof RunChoice) : 'model';
  const problems = issues.flatMap((issue) =>
    describeIssue(issue, {
      input,
      schema: RunChoiceBody,
      label: (path) => FIELD_LABELS[fieldOf(path[0])],
    }).map((message) => ({ field: fieldOf(issue.path[0]), message })),
  );
  return { ok: false, problems, warnings: [] };
}
const AnswersBody = z.strictObject({ answers: z.array(z.string().max(MAX_ANSWER_CHARS)).max(20) });
const StartBody = z.strictObject({ spec: z.string() });
const WaitQuery = z.object({
  after: z.coerce.number().int().nonnegative().default(0),
  wait: z.coerce.number().int().min(0).max(PLAN_WAIT_MS).default(0),
});

async function body<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const raw = await c.req.json().catch(() => undefined);
  return parseParam(schema, raw, 'request body');
}

/**
 * `/api/plans`: the new-run form's API. `POST` starts a planner session, `GET :id?after=&wait=` long-polls its
 * state, `POST :id/answers` answers its questions, `POST :id/start` starts a run with the (edited) spec,
 * `POST :id/discard` drops it. Without a desk (no planner wired) every route says so with a 404.
 */
export function planRoutes(desk: PlanDesk | undefined): Hono {
  const app = new Hono();
  app.onError((error, c) =>
    error instanceof PlanRequestError
      ? c.json({ error: 'plan', message: error.describe() }, error.status)
      : errorResponse(error, c),
  );
  guardPlanRequests(app, desk);
  const live = desk as PlanDesk;
  addChoiceRoutes(app, live);
  addPlanSessionRoutes(app, live);
  return app;
}

/** Refuses every request when there is no desk, and bodies larger than a spec can be. */
function guardPlanRequests(app: Hono, desk: PlanDesk | undefined): void {
  app.use('*', async (c, next) => {
    if (!desk) {
      return c.json(
        {
          error: 'not_found',
          message:
            'This dashboard cannot plan: start it with `nightshift dashboard` (the planner uses the configured model).',
        },
        404,
      );
    }
    await next();
  });
  // A spec is the largest body: the whole spec, JSON-escaped, with room to spare.
  app.use(
    '*',
    bodyLimit({
      maxSize: 2 * MAX_SPEC_BYTES,
      onError: (c) => c.json({ error: 'too_large', message: 'The request body is too large.' }, 413),
    }),
  );
}

/** The `:id` path parameter, validated. */
function planIdOf(c: Context): string {
  return parseParam(PlanIdParam, c.req.param('id'), 'plan id');
}

/** `GET /` (what the form offers), `POST /check` (a choice checked) and `POST /` (a new plan). */
function addChoiceRoutes(app: Hono, live: PlanDesk): void {
  app.get('/', (c) => c.json(live.info satisfies PlanningInfoResponse));
  // The form checks its choice as the person makes it, before any idea is typed: always 200, problems by field.
  app.post('/check', async (c) => {
    const raw = await c.req.json().catch(() => undefined);
    const parsed = RunChoiceBody.safeParse(raw);
    if (!parsed.success) return c.json(shapeProblems(parsed.error.issues, raw));
    return c.json((await live.check(parsed.data)) satisfies ChoiceCheckResponse);
  });
  app.post('/', async (c) => {
    const { prompt, choice } = await body(c, CreateBody);
    const idea = checkPlannerPrompt(prompt);
    if (choice) {
      // No planner session (and no cost) on a choice the run would refuse anyway.
      const check = await live.check(choice);
      if (!check.ok) {
        throw new InputError(
          'RUN_CHOICE_INVALID',
          check.problems.map((problem) => problem.message).join('\n'),
          {
            hint: 'Change what is named above, then plan again.',
          },
        );
      }
    }
    return c.json(live.create(idea, choice), 201);
  });
}

/** One plan's routes: its state (long-polled), answers, start and discard. */
function addPlanSessionRoutes(app: Hono, live: PlanDesk): void {
  app.get('/:id', async (c) => {
    const { after, wait } = parseParam(WaitQuery, c.req.query(), 'query');
    return c.json(await live.get(planIdOf(c), after, wait));
  });
  app.post('/:id/answers', async (c) => {
    const { answers } = await body(c, AnswersBody);
    return c.json(live.answer(planIdOf(c), answers));
  });
  app.post('/:id/start', async (c) => {
    const { spec } = await body(c, StartBody);
    return c.json(await live.start(planIdOf(c), spec));
  });
  app.post('/:id/discard', (c) => {
    live.discard(planIdOf(c));
    return c.json({ ok: true });
  });
}
