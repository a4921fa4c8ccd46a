/**
 * A simulated model that behaves like a real one, for the overnight benchmark and whole-run tests: the examples'
 * scripted roles (testkit/policies) with seeded turn latencies, the server's growing usage and cached prefix, a
 * generator that makes mistakes at set rates, 429/529 bursts, and an honest evaluator in varied wording styles that
 * is sometimes wrong — only ever failing what works. One seed decides everything: the same seed, the same run.
 *
 * How the overnight bench (bench/overnight*.ts) uses it:
 *   const model = simulatedModel({ seed, latency: { compression: 20 } });
 *   const server = await startModelServer({ policy: model.policy });
 *   // a run of examples/meal-planner (50 features) with `anthropic:simulated` and `openai:simulated` models whose
 *   // base URLs point at the server, lanes and budgets as a night would have them; then it reports the wall time
 *   // times the compression, tokens (the cached share), cost, and each of `model.mistakes()` next to what the
 *   // harness did about it: a no-start or half-done feature fixed on its next try, a regression found by a sweep,
 *   // a false fail retried, a burst waited out — and that no feature passes broken (recorded checks replay green).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type DemoRole, roleOf, scriptedPolicy } from '../policies/demo.js';
import { parseEvaluatorBrief } from '../policies/evaluator.js';
import { generatorScript, parseGeneratorBrief } from '../policies/generator.js';
import { recordedTurns, type Script } from '../policies/script.js';
import { unitHash } from '../policies/seeded.js';
import type { Fault, Policy, ScriptedConversation } from '../types.js';
import { HONEST_STYLES, simulatedEvaluator } from './evaluator.js';
import { mistakenIO } from './generator-mistakes.js';
import { latencySampler } from './latency.js';
import { type MistakeTargets, mistakeTargets } from './mistake-targets.js';
import { type SimulatedModelInput, SimulatedModelOptions } from './options.js';
import { isFalseFail, MISTAKE_KINDS, type MistakeKind, mistakeOf, seededChoice } from './schedule.js';
import { recheckPassing } from './self-check.js';
import { SessionLedger, sessionKey } from './sessions.js';

export { fitLognormal, latencySampler } from './latency.js';
export { SimulatedModelOptions } from './options.js';
export { isFalseFail, MISTAKE_KINDS, type MistakeKind, mistakeOf } from './schedule.js';
export { featuresToRecheck, RECHECK_HEADING, recheckPassedMessage } from './self-check.js';

/** One mistake the simulated model made (it showed in a reply). */
export interface MistakeRecord {
  kind: MistakeKind | 'falseFail';
  role: DemoRole;
  featureId: string | undefined;
  /** The session's ordinal among its subject's sessions. */
  ordinal: number;
  /** The first request of the session. */
  requestIndex: number;
}

/** The simulated model: its policy for `startModelServer` and what it has done wrong so far. */
export interface SimulatedModel {
  policy: Policy;
  options: SimulatedModelOptions;
  /** Every mistake that showed in a reply, in the order the sessions began. */
  mistakes(): MistakeRecord[];
}

/**
 * Mistakes played on an example's own files (mistake-targets.ts: the todo example and the meal planner); on the
 * other examples a generator makes only the mistakes any app has: no commit, a reply cut at the limit, a burst.
 */
const TARGETED_MISTAKES: readonly MistakeKind[] = ['appDoesNotStart', 'halfDone', 'regression'];

/** What the model decided for one session at its first request. */
interface SessionPlan {
  role: DemoRole | undefined;
  featureIds: string[];
  ordinal: number;
  requestIndex: number;
  mistake: MistakeKind | undefined;
  made: boolean;
  burstStarted: boolean;
  targets: MistakeTargets | undefined;
  styleIndex: number;
  /** Features whose pass this evaluator misreads, and those it did. */
  misread: Set<string>;
  misreadMade: Set<string>;
}

/** Builds the simulated model (options validated; defaults in options.ts). */
export function simulatedModel(input: SimulatedModelInput): SimulatedModel {
  const options = SimulatedModelOptions.parse(input);
  const ledger = new SessionLedger();
  const plans = new Map<string, SessionPlan>();
  const latency = latencySampler(options.seed, options.latency);
  let burstLeft = 0;

  const burstFault = (plan: SessionPlan, requestIndex: number): Fault | undefined => {
    if (plan.mistake === 'burst' && !plan.burstStarted) {
      plan.burstStarted = plan.made = true;
      burstLeft = options.burst.length;
    }
    if (burstLeft === 0) return undefined;
    burstLeft -= 1;
    const retryAfterSeconds = options.burst.retryAfterSeconds;
    return unitHash(`${options.seed}:burst:${requestIndex}`) < options.burst.rateLimitShare
      ? { kind: 'rate_limit', retryAfterSeconds }
      : { kind: 'overloaded', retryAfterSeconds };
  };

  const policy: Policy = async (conversation) => {
    const { firstMessage } = recordedTurns(conversation.messages);
    const key = sessionKey(conversation.system, firstMessage);
    const plan = plans.get(key) ?? planSession(options, ledger, conversation, firstMessage);
    plans.set(key, plan);
    const fault = burstFault(plan, conversation.requestIndex);
    if (fault) return { fault };
    let cut = false;
    const reply = await scriptedPolicy(scriptsFor(plan, () => (cut = true)))(conversation);
    await sleep(latency(conversation.requestIndex));
    return cut && !('fault' in reply) ? { ...reply, truncated: true } : reply;
  };

  return { policy, options, mistakes: () => [...plans.values()].flatMap(mistakesOf) };
}

/** The plan of a session seen for the first time. */
function planSession(
  options: SimulatedModelOptions,
  ledger: SessionLedger,
  conversation: ScriptedConversation,
  firstMessage: string,
): SessionPlan {
  const role = roleOf(conversation);
  const key = sessionKey(conversation.system, firstMessage);
  const generator = role === 'generator' ? parseGeneratorBrief(firstMessage) : undefined;
  const featureIds = generator
    ? [generator.featureId]
    : role === 'evaluator'
      ? (parseEvaluatorBrief(firstMessage)?.targets.map((target) => target.featureId) ?? [])
      : [];
  const subject = `${role ?? 'unknown'}:${featureIds.join(',')}`;
  const ordinal = ledger.ordinal(subject, key);
  const targets = generator?.feature ? mistakeTargets(generator.feature) : undefined;
  const applicable: MistakeKind[] = generator?.feature
    ? MISTAKE_KINDS.filter(
        (kind) =>
          (kind !== 'regression' || targets?.regression !== undefined) &&
          (targets !== undefined || !TARGETED_MISTAKES.includes(kind)),
      )
    : ['burst'];
  const misread = new Set(
    role === 'evaluator'
      ? featureIds.filter((id) =>
          isFalseFail(options.seed, options.falseFailRate, id, ledger.ordinal(`evaluation:${id}`, key)),
        )
      : [],
  );
  return {
    role,
    featureIds,
    ordinal,
    requestIndex: conversation.requestIndex,
    mistake: mistakeOf({ seed: options.seed, rates: options.mistakes, subject, ordinal, applicable }),
    made: false,
    burstStarted: false,
    targets,
    styleIndex: seededChoice(options.seed, `${subject}:${ordinal}`, HONEST_STYLES.length),
    misread,
    misreadMade: new Set(),
  };
}

/** The scripts of the roles, the generator and evaluator playing this session's plan. */
function scriptsFor(plan: SessionPlan, cut: () => void): Partial<Record<DemoRole, Script>> {
  const mistake = {
    kind: plan.mistake === 'burst' ? undefined : plan.mistake,
    targets: plan.targets,
    made: () => {
      plan.made = true;
    },
    cut,
  };
  const style = HONEST_STYLES[plan.styleIndex] as (typeof HONEST_STYLES)[number];
  return {
    generator: (io) => {
      recheckPassing(io);
      generatorScript(mistakenIO(io, mistake));
    },
    evaluator: simulatedEvaluator(style, plan.misread, (featureId) => plan.misreadMade.add(featureId)),
  };
}

function mistakesOf(plan: SessionPlan): MistakeRecord[] {
  if (!plan.role) return [];
  const base = { role: plan.role, ordinal: plan.ordinal, requestIndex: plan.requestIndex };
  const made: MistakeRecord[] =
    plan.mistake && plan.made ? [{ ...base, kind: plan.mistake, featureId: plan.featureIds[0] }] : [];
  for (const featureId of plan.misreadMade) made.push({ ...base, kind: 'falseFail', featureId });
  return made;
}
