import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pauseRun } from '../../../orchestrator/controls.js';
import type { RunEvent } from '../../../orchestrator/events.js';
import { createStatusListener } from '../../../orchestrator/notifications.js';
import { WebhookPayload } from '../../../orchestrator/webhook-format.js';
import { connect, deleteKeys, newRun, uniquePrefix } from '../orchestrator/redis-helpers.js';
import { openOrchestrator, type Receiver, startReceiver, type TestOrchestrator } from './helpers.js';

const prefix = uniquePrefix();
let test: TestOrchestrator;
const receivers: Receiver[] = [];

beforeAll(() => {
  test = openOrchestrator(prefix);
});

afterAll(async () => {
  await test.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  const redis = connect();
  await deleteKeys(redis, prefix);
  expect(await redis.keys(`${prefix}*`)).toEqual([]);
  redis.disconnect();
});

async function receiver(respond: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

/** A running run whose config posts to `webhooks`. */
async function runWith(
  webhooks: Array<{ url: string; format?: 'json' | 'slack'; events?: ['nightly.summary'] }>,
) {
  const { store } = test.orchestrator;
  const run = await store.createRun(newRun({ notifications: { webhooks } }));
  await store.setStatus(run.id, 'building');
  return run;
}

async function failures(runId: string) {
  const events: RunEvent[] = (await test.orchestrator.store.readEvents(runId, { count: 100 })).map(
    (e) => e.event,
  );
  return events.filter((event) => event.type === 'notification.failed');
}

it('retries a failing webhook with back-off and delivers on the third attempt', async () => {
  const flaky = await receiver((_path, attempt) => (attempt <= 2 ? 503 : 200));
  const notifier = createStatusListener({
    orchestrator: test.orchestrator,
    retry: { attempts: 3, baseDelayMs: 10 },
  });
  test.orchestrator.onStatusChange = notifier;
  const run = await runWith([
    { url: `${flaky.url}/hook` },
    { url: `${flaky.url}/summaries-only`, events: ['nightly.summary'] },
  ]);
  await pauseRun(test.orchestrator, run.id, 'lunch');
  await notifier.flush();
  expect(flaky.attempts('/hook')).toBe(3);
  expect(flaky.received.map((request) => request.path)).toEqual(['/hook']);
  expect(WebhookPayload.parse(flaky.received[0]?.body)).toMatchObject({
    type: 'run.paused',
    runId: run.id,
    status: 'paused',
    reason: 'user',
    detail: 'lunch',
  });
  expect(flaky.attempts('/summaries-only')).toBe(0);
  expect(await failures(run.id)).toEqual([]);
});

it('a webhook that keeps failing never blocks the run and ends in a notification.failed event', async () => {
  // The first request is held unanswered until the test releases it: a listener that waited for the webhook
  // would never let pauseRun return.
  const down = await receiver((_path, attempt) => (attempt === 1 ? 'hold' : 500));
  const notifier = createStatusListener({
    orchestrator: test.orchestrator,
    retry: { attempts: 3, baseDelayMs: 10 },
  });
  test.orchestrator.onStatusChange = notifier;
  const run = await runWith([{ url: `${down.url}/services/T0/B0/s3cr3t?token=abc`, format: 'slack' }]);

  const paused = await pauseRun(test.orchestrator, run.id);
  expect(paused.status).toBe('paused');
  expect(notifier.pending()).toBe(1);
  expect(await failures(run.id)).toEqual([]);

  await down.waitForRequests('/services/T0/B0/s3cr3t?token=abc', 1);
  down.release(500);
  await notifier.flush();
  expect(notifier.pending()).toBe(0);
  expect(down.attempts('/services/T0/B0/s3cr3t?token=abc')).toBe(3);
  const [failed, ...more] = await failures(run.id);
  expect(more).toEqual([]);
  expect(failed).toMatchObject({
    type: 'notification.failed',
    runId: run.id,
    target: down.url,
    event: 'run.paused',
    attempts: 3,
    error: 'HTTP 500 Internal Server Error',
  });
  expect(JSON.stringify(failed)).not.toContain('s3cr3t');
});

it('connection refused and a receiver that never answers both end as notification.failed', async () => {
  const silent = await receiver(() => 'never');
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const notifier = createStatusListener({
    orchestrator: test.orchestrator,
    retry: { attempts: 2, baseDelayMs: 10 },
    timeoutMs: 200,
  });
  test.orchestrator.onStatusChange = notifier;
  const run = await runWith([
    { url: `${silent.url}/slow/abc` },
    { url: `http://127.0.0.1:${closedPort}/gone/abc` },
  ]);
  await pauseRun(test.orchestrator, run.id);
  await notifier.flush();
  expect(silent.attempts('/slow/abc')).toBe(2);
  const byTarget = new Map((await failures(run.id)).map((event) => [event.target, event]));
  expect(byTarget.get(silent.url)).toMatchObject({ attempts: 2, error: 'no answer within 200 ms' });
  expect(byTarget.get(`http://127.0.0.1:${closedPort}`)).toMatchObject({
    attempts: 2,
    error: expect.stringContaining('ECONNREFUSED'),
  });
});
