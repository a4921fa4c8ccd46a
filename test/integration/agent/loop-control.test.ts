import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentEvent } from '../../../agent/events.js';
import { type RunAgentOptions, runAgent } from '../../../agent/loop.js';
import { createFileTools } from '../../../agent/tools/index.js';
import { readTranscript, TranscriptWriter } from '../../../agent/transcript.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { lastUserText, providersFor, tempWorkspace, turnOf } from './loop-helpers.js';

let server: ModelServer;
let workspace: string;

beforeAll(async () => {
  server = await startModelServer({ policy: () => ({ text: 'idle' }) });
  workspace = tempWorkspace();
});
afterAll(async () => {
  await server.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

function options(overrides: Partial<RunAgentOptions> = {}): RunAgentOptions {
  return {
    sessionId: 'control',
    provider: providersFor(server).anthropic,
    system: 'You are tested.',
    firstMessage: 'go',
    tools: createFileTools(),
    toolContext: { workspace, protectedPaths: ['.git'] },
    limits: { maxSteps: 10, maxWallMs: 20_000 },
    sleep: async () => undefined,
    ...overrides,
  };
}

describe('hooks', () => {
  it('sends the model back from beforeStop a bounded number of times, with the message it sees', async () => {
    const notes: string[] = [];
    server.setPolicy((conversation) => {
      notes.push(lastUserText(conversation));
      return { text: `stopping (turn ${turnOf(conversation)})` };
    });
    let asked = 0;
    const events: AgentEvent[] = [];
    const result = await runAgent(
      options({
        hooks: {
          beforeStop: () => (++asked < 10 ? { stop: false, message: 'commit first' } : { stop: true }),
        },
        limits: { maxSteps: 10, maxWallMs: 20_000, maxStopReturns: 2 },
        sink: (event) => events.push(event),
      }),
    );
    expect(result.outcome).toBe('completed');
    expect(result.reason).toMatch(/still failing after 2 returns: commit first/);
    expect(result.steps).toBe(3);
    expect(notes.slice(1)).toEqual(['[harness] commit first', '[harness] commit first']);
    expect(events.filter((event) => event.type === 'stop.blocked')).toHaveLength(2);
  });

  it('lets beforeToolCall deny a call with a reason the model sees, and the tool does not run', async () => {
    let seen = '';
    server.setPolicy((conversation) => {
      if (turnOf(conversation) === 0)
        return { toolCalls: [{ name: 'write', arguments: { path: 'x.txt', content: 'x' } }] };
      seen = lastUserText(conversation);
      return { text: 'ok' };
    });
    const result = await runAgent(
      options({ hooks: { beforeToolCall: (call) => ({ allow: false, reason: `no ${call.name} today` }) } }),
    );
    expect(result.outcome).toBe('completed');
    expect(seen).toBe('Refused: no write today');
    expect(fs.existsSync(path.join(workspace, 'x.txt'))).toBe(false);
  });

  it('ends the session when beforeTurn says so (a budget crossed mid-session)', async () => {
    server.setPolicy(() => ({ toolCalls: [{ name: 'read', arguments: { path: `.` } }] }));
    let turns = 0;
    const result = await runAgent(
      options({ hooks: { beforeTurn: () => (++turns > 2 ? { end: 'budget of $1.00 reached' } : {}) } }),
    );
    expect(result).toMatchObject({ outcome: 'ended_by_hook', reason: 'budget of $1.00 reached', steps: 2 });
  });

  it('completes without another request when beforeTurn says the work is done, unless beforeStop disagrees', async () => {
    server.setPolicy(() => ({ toolCalls: [{ name: 'read', arguments: { path: `.` } }] }));
    let turns = 0;
    let stops = 0;
    const result = await runAgent(
      options({
        hooks: {
          beforeTurn: () => (++turns > 2 ? { done: true } : {}),
          // The first "done" is refused with a note: the loop goes on to ask the model.
          beforeStop: () => (++stops === 1 ? { stop: false, message: 'one more look' } : { stop: true }),
        },
      }),
    );
    expect(result).toMatchObject({ outcome: 'completed', steps: 3 });
    expect(stops).toBe(2);
  });
});

describe('limits and loop detection', () => {
  it('stops at the step limit and reminds the model to wrap up before it', async () => {
    const texts: string[] = [];
    let n = 0;
    server.setPolicy((conversation) => {
      texts.push(lastUserText(conversation));
      return { toolCalls: [{ name: 'write', arguments: { path: `f${n++}.txt`, content: 'x' } }] };
    });
    const result = await runAgent(options({ limits: { maxSteps: 5, maxWallMs: 20_000 } }));
    expect(result).toMatchObject({ outcome: 'step_limit', steps: 5 });
    expect(texts.filter((text) => text.includes('You have used 4 of 5 steps'))).toHaveLength(1);
  });

  it('stops at the wall-clock limit, aborting the request in flight', async () => {
    server.setPolicy(() => ({ text: 'late' }));
    server.injectFaults([{ kind: 'slow', delayMs: 5_000 }]);
    const result = await runAgent(options({ limits: { maxSteps: 5, maxWallMs: 300 } }));
    expect(result.outcome).toBe('time_limit');
    expect(result.steps).toBe(0);
  });

  it('stops when the caller aborts', async () => {
    server.setPolicy(() => ({ text: 'late' }));
    server.injectFaults([{ kind: 'slow', delayMs: 5_000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('worker shutting down')), 100);
    const result = await runAgent(options({ signal: controller.signal }));
    expect(result).toMatchObject({ outcome: 'aborted', reason: 'worker shutting down' });
  });

  it('refuses the third identical call in a row and tells the model why', async () => {
    let seen = '';
    server.setPolicy((conversation) => {
      if (turnOf(conversation) < 3)
        return { toolCalls: [{ name: 'read', arguments: { path: 'missing.txt' } }] };
      seen = lastUserText(conversation);
      return { text: 'ok' };
    });
    const events: AgentEvent[] = [];
    await runAgent(options({ sink: (event) => events.push(event) }));
    expect(seen).toMatch(/^Refused: read was called 3 times in a row/);
    expect(events.some((event) => event.type === 'loop.detected' && event.kind === 'repeated_call')).toBe(
      true,
    );
  });
});

describe('provider failures', () => {
  it('retries a 500 with back-off and then succeeds', async () => {
    server.setPolicy(() => ({ text: 'fine' }));
    server.injectFaults([
      { kind: 'server_error', status: 500 },
      { kind: 'server_error', status: 503 },
    ]);
    const delays: number[] = [];
    const events: AgentEvent[] = [];
    const result = await runAgent(
      options({
        sleep: async (ms) => {
          delays.push(ms);
        },
        // Jitter at its top: the full exponential delay.
        retry: { maxRetries: 2, baseDelayMs: 100, random: () => 1 },
        sink: (event) => events.push(event),
      }),
    );
    expect(result).toMatchObject({ outcome: 'completed', lastText: 'fine' });
    expect(delays).toEqual([100, 200]);
    expect(
      events
        .filter((event) => event.type === 'model.error')
        .map((event) => event.type === 'model.error' && event.kind),
    ).toEqual(['retryable', 'retryable']);
  });

  it('gives up after the retries as provider_error', async () => {
    server.setPolicy(() => ({ text: 'never' }));
    server.injectFaults([{ kind: 'server_error' }, { kind: 'server_error' }]);
    const result = await runAgent(options({ retry: { maxRetries: 1 } }));
    expect(result.outcome).toBe('provider_error');
    expect(result.failure?.kind).toBe('retryable');
  });

  it('ends at once on a rate limit, reporting retry-after, for both providers', async () => {
    for (const provider of Object.values(providersFor(server))) {
      server.setPolicy(() => ({ text: 'never' }));
      server.injectFaults([{ kind: 'rate_limit', retryAfterSeconds: 7 }]);
      const result = await runAgent(options({ provider }));
      expect(result.outcome).toBe('rate_limited');
      expect(result.failure?.retryAfterMs).toBe(7_000);
    }
  });

  it('ends on context overflow so the caller can checkpoint', async () => {
    server.setPolicy(() => ({ text: 'never' }));
    server.injectFaults([{ kind: 'context_overflow' }]);
    const result = await runAgent(options());
    expect(result.outcome).toBe('context_overflow');
  });
});

describe('events and transcript', () => {
  it('emits schema-valid events and writes a transcript with secrets redacted', async () => {
    const secret = 'sk-ant-super-secret-value-42';
    server.setPolicy((conversation) =>
      turnOf(conversation) === 0
        ? { toolCalls: [{ name: 'write', arguments: { path: 'key.txt', content: `key=${secret}` } }] }
        : { text: `I wrote ${secret}` },
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-transcript-')), 'session.jsonl');
    const events: AgentEvent[] = [];
    await runAgent(
      options({ transcript: new TranscriptWriter(file, [secret]), sink: (event) => events.push(event) }),
    );
    for (const event of events) expect(AgentEvent.safeParse(event).success).toBe(true);
    expect(events[0]?.type).toBe('session.started');
    expect(events.at(-1)?.type).toBe('session.ended');
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw).not.toContain(secret);
    expect(raw).toContain('[redacted]');
    const { lines, invalidLines } = readTranscript(file);
    expect(invalidLines).toBe(0);
    expect(lines.filter((line) => line.kind === 'message')).toHaveLength(4);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
});
