import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../agent/transcript.js';
import { InputError } from '../../../core/errors.js';
import { planDataDir } from '../../../core/paths.js';
import { PlannerFailedError, PlanRecord, runPlanner } from '../../../roles/planner.js';
import { plannedSpecProblems, SPEC_SECTIONS } from '../../../roles/planner-spec.js';
import { PLANNER_QUESTIONS, plannerPolicy } from '../../../testkit/policies/planner.js';
import { sequence } from '../../../testkit/policies.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';
import { FLAVOURS, type Flavour, providerFor } from '../providers/helpers.js';

// The planner role through the real SDKs against the scripted server: the idea becomes a spec with every
// section, questions reach `ask` and their answers reach the spec, and a planner that misbehaves ends with a
// PlannerFailedError that says why — nothing is written anywhere but the plan's own record.
let server: ModelServer;
let dataDir: string;
beforeAll(async () => {
  server = await startModelServer({ policy: plannerPolicy });
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ns-planner-')));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => server.setPolicy(plannerPolicy));

let planCounter = 0;
const nextPlanId = () => `p-test${++planCounter}`;
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

/** Tool names the planner's requests declared (every request of the session since `from`). */
function declaredTools(from: number): string[][] {
  return server.requests.slice(from).map((request) => {
    const body = JSON.parse(request.body) as {
      tools?: Array<{ name?: string; function?: { name: string } }>;
    };
    return (body.tools ?? []).map((tool) => tool.name ?? tool.function?.name ?? '?');
  });
}

/** One unattended planner session on `prompt` over `flavour`. */
function planOver(flavour: Flavour, prompt: string, planId = nextPlanId()) {
  return runPlanner({ planId, prompt, provider: providerFor(flavour, server), dataDir });
}

/** The PlannerFailedError a session ended with (fails the test when it produced a spec). */
async function failureOf(session: Promise<unknown>): Promise<PlannerFailedError> {
  const error = await session.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlannerFailedError);
  return error as PlannerFailedError;
}

/** The text of every tool result the model was sent, in order, from a transcript. */
function toolResultsOf(transcript: string): string[] {
  const blocks = readTranscript(transcript).lines.flatMap((line) =>
    line.kind === 'message' ? (line.message.content as Array<{ type: string; content?: unknown }>) : [],
  );
  return blocks.filter((block) => block.type === 'tool_result').map((block) => String(block.content));
}

describe.each(FLAVOURS)('planner over the %s wire format', (flavour) => {
  it('asks its questions, uses the answers and writes a spec with every section', async () => {
    const provider = providerFor(flavour, server);
    const asked: string[][] = [];
    const planId = nextPlanId();
    const plan = await runPlanner({
      planId,
      prompt: 'A shared grocery list for our flat.',
      provider,
      prices: { [provider.id]: PRICE },
      dataDir,
      ask: async (questions) => {
        asked.push([...questions]);
        return ['the four of us sharing a flat', 'Warm orange, big touch targets'];
      },
    });
    expect(asked).toEqual([[...PLANNER_QUESTIONS]]);
    expect(plan.exchanges.map((exchange) => exchange.answer)).toEqual([
      'the four of us sharing a flat',
      'Warm orange, big touch targets',
    ]);
    expect(plannedSpecProblems(plan.spec)).toEqual([]);
    for (const section of SPEC_SECTIONS) expect(plan.spec).toContain(`## ${section.heading}`);
    expect(plan.spec).toContain('A shared grocery list for our flat');
    expect(plan.spec).toContain('Made for: the four of us sharing a flat.');
    expect(plan.spec).toContain('Warm orange, big touch targets.');
    expect(plan.costUsd).toBeGreaterThan(0);
    // The record on disk: the spec as accepted, plan.json and a transcript holding the whole exchange.
    const dir = planDataDir(dataDir, planId);
    expect(fs.readFileSync(path.join(dir, 'spec.md'), 'utf8')).toBe(plan.spec);
    const saved = PlanRecord.parse(JSON.parse(fs.readFileSync(path.join(dir, 'plan.json'), 'utf8')));
    expect(saved).toMatchObject({ outcome: 'accepted', interactive: true, costUsd: plan.costUsd });
    const transcript = readTranscript(plan.transcript);
    expect(transcript.lines.find((line) => line.kind === 'system')).toMatchObject({
      tools: ['ask_user', 'submit_spec'],
    });
    expect(JSON.stringify(transcript.lines)).toContain('Warm orange, big touch targets');
  });
});

describe('planner', () => {
  it('unattended: offers no ask_user, so it cannot ask; the spec takes the defaults', async () => {
    const from = server.requests.length;
    const plan = await planOver('anthropic', 'A todo list for my weekend projects.');
    expect(declaredTools(from).every((tools) => tools.join() === 'submit_spec')).toBe(true);
    expect(plan.exchanges).toEqual([]);
    expect(plan.interactive).toBe(false);
    expect(plannedSpecProblems(plan.spec)).toEqual([]);
    // The accepted spec ends the session: no request after the one that submitted it.
    expect(plan.steps).toBe(1);
  });

  it('a refused spec goes back with the exact problem, and the fixed one is accepted', async () => {
    const plan = await planOver('openai', 'A todo list. [scripted:sloppy]');
    expect(plan.refusals).toEqual([
      ['Section "## Out of scope" is missing (what it deliberately does not do).'],
    ]);
    expect(plan.spec).toContain('## Out of scope');
  });

  it('a planner that tries to write files or pick a path is refused and ends without a spec', async () => {
    const planId = nextPlanId();
    const escapePath = '/tmp/nightshift-planner-escape';
    fs.rmSync(escapePath, { force: true });
    fs.rmSync(`${escapePath}.md`, { force: true });
    const failure = await failureOf(planOver('anthropic', 'A todo list. [scripted:hostile]', planId));
    expect(failure.message).toMatch(/produced no spec: it stopped without submitting a spec/);
    expect(failure.exitCode).toBe(1);
    expect(failure.record.outcome).toBe('failed');
    // What the model was told for each attempt.
    const results = toolResultsOf(failure.record.transcript);
    expect(results[0]).toMatch(/^Unknown tool "write"\. Available tools: submit_spec\./);
    expect(results[1]).toMatch(/^Unknown tool "bash"/);
    expect(results[2]).toMatch(/Invalid arguments for submit_spec:[\s\S]*path/);
    // Nothing landed anywhere: not outside, not in the plan's dir beyond its own record.
    expect(fs.existsSync(escapePath)).toBe(false);
    expect(fs.existsSync(`${escapePath}.md`)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'outside-the-spec.md'))).toBe(false);
    expect(fs.readdirSync(planDataDir(dataDir, planId)).sort()).toEqual(['plan.json', 'transcript.jsonl']);
  });

  it('an empty spec is refused; after three refusals the session ends with a clear error', async () => {
    const failure = await failureOf(planOver('openai', 'A todo list. [scripted:empty]'));
    expect(failure.message).toContain('the spec was refused 3 times');
    expect(failure.message).toContain('The spec is empty');
    expect(failure.record.refusals).toHaveLength(3);
    expect(failure.record.steps).toBe(3);
  });

  it('bounds the questions: too many at once is invalid, a third round is refused', async () => {
    const many = Array.from({ length: 6 }, (_, index) => `Question ${index + 1}?`);
    server.setPolicy(
      sequence([
        { toolCalls: [{ name: 'ask_user', arguments: { questions: many } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { questions: ['A?', 'B?', 'C?'] } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { questions: ['D?', 'E?'] } }] },
        { toolCalls: [{ name: 'ask_user', arguments: { questions: ['F?'] } }] },
      ]),
    );
    let calls = 0;
    const failure = await failureOf(
      runPlanner({
        planId: nextPlanId(),
        prompt: 'Anything.',
        provider: providerFor('anthropic', server),
        dataDir,
        ask: async (questions) => {
          calls++;
          return questions.map(() => '');
        },
      }),
    );
    expect(calls).toBe(2);
    const record = failure.record;
    expect(record.exchanges.map((exchange) => exchange.question)).toEqual(['A?', 'B?', 'C?', 'D?', 'E?']);
    const results = toolResultsOf(record.transcript);
    expect(results[0]).toMatch(/Invalid arguments for ask_user:[\s\S]*questions/);
    expect(results[3]).toMatch(/You have asked all the questions you may/);
  });

  it('refuses an empty or overlong prompt before any request', async () => {
    const from = server.requests.length;
    const provider = providerFor('anthropic', server);
    await expect(runPlanner({ planId: nextPlanId(), prompt: '  \n', provider, dataDir })).rejects.toThrow(
      InputError,
    );
    await expect(
      runPlanner({ planId: nextPlanId(), prompt: 'x'.repeat(8_001), provider, dataDir }),
    ).rejects.toMatchObject({ code: 'PROMPT_TOO_LONG' });
    expect(server.requests.length).toBe(from);
  });
});
