import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { MAX_SPEC_BYTES } from '../orchestrator/start-run.js';
import { checkPlannerPrompt } from '../roles/planner.js';
import { errorResponse, parseParam } from './api.js';
import type { PlanningInfoResponse } from './api-types.js';
import { MAX_ANSWER_CHARS, type PlanDesk, PlanRequestError } from './plan-desk.js';

/** Longest a `GET /api/plans/:id?after=` waits for a change. */
export const PLAN_WAIT_MS = 20_000;

const PlanIdParam = z.string().regex(/^p-[a-z0-9]{1,40}$/, 'plan ids look like p-…');
const CreateBody = z.strictObject({ prompt: z.string() });
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
  const planId = (c: Context) => parseParam(PlanIdParam, c.req.param('id'), 'plan id');
  const live = desk as PlanDesk;

  app.get('/', (c) => c.json(live.info satisfies PlanningInfoResponse));
  app.post('/', async (c) => {
    const { prompt } = await body(c, CreateBody);
    return c.json(live.create(checkPlannerPrompt(prompt)), 201);
  });
  app.get('/:id', async (c) => {
    const { after, wait } = parseParam(WaitQuery, c.req.query(), 'query');
    return c.json(await live.get(planId(c), after, wait));
  });
  app.post('/:id/answers', async (c) => {
    const { answers } = await body(c, AnswersBody);
    return c.json(live.answer(planId(c), answers));
  });
  app.post('/:id/start', async (c) => {
    const { spec } = await body(c, StartBody);
    return c.json(await live.start(planId(c), spec));
  });
  app.post('/:id/discard', (c) => {
    live.discard(planId(c));
    return c.json({ ok: true });
  });
  return app;
}
