/**
 * Sessions whose only output is one submission the harness accepts or sends back (the planner's spec, the feature
 * writer's entry): the turn and stop hooks that end them once it is accepted or refused too often, and the reason a
 * person reads when none was accepted.
 */
import type { AgentResult, LoopHooks } from '../agent/loop.js';

/** What such a session has so far: an accepted submission or not, and each refusal's problems. */
export interface Submissions {
  accepted(): boolean;
  readonly refusals: readonly string[][];
}

/** How the session talks about its submission. */
export interface SubmissionWords {
  /** What is submitted: `spec`, `feature`. */
  noun: string;
  /** Refused submissions before the session ends. */
  maxRefusals: number;
  /** Model requests in all (two before the end, the model is told to submit). */
  maxSteps: number;
  /** The note two requests before the end. */
  lastCall: string;
  /** What a model that stops without submitting is told. */
  nothingSubmitted: string;
}

/** Ends the session at once when accepted or refused `maxRefusals` times; warns two requests before the end. */
export function submissionHooks(submissions: Submissions, words: SubmissionWords): LoopHooks {
  let warned = false;
  return {
    beforeTurn: (state) => {
      // The accepted submission is the whole output: no further request is worth its tokens.
      if (submissions.accepted()) return { end: `${words.noun} accepted` };
      if (submissions.refusals.length >= words.maxRefusals) {
        return { end: `the ${words.noun} was refused ${submissions.refusals.length} times` };
      }
      if (!warned && state.step >= words.maxSteps - 2) {
        warned = true;
        return { note: words.lastCall };
      }
      return {};
    },
    beforeStop: () =>
      submissions.accepted() ? { stop: true } : { stop: false, message: words.nothingSubmitted },
  };
}

/** Why a session ended without an accepted submission, and what the person can do. */
export function submissionFailure(
  agent: AgentResult,
  submissions: Submissions,
  words: Pick<SubmissionWords, 'noun' | 'maxRefusals'> & {
    /** What the session was doing, for a cancelled one: `planning`. */
    activity: string;
    /** How to get another model: `choose another model with --model`. */
    otherModel: string;
  },
): { reason: string; hint: string } {
  const { noun } = words;
  const lastRefusal = submissions.refusals.at(-1);
  if (submissions.refusals.length >= words.maxRefusals && lastRefusal) {
    return {
      reason: `the ${noun} was refused ${submissions.refusals.length} times; last problems: ${lastRefusal.join(' ')}`,
      hint: `Try again (perhaps with a clearer prompt), or ${words.otherModel}.`,
    };
  }
  switch (agent.outcome) {
    case 'rate_limited':
    case 'provider_error':
    case 'context_overflow':
      return {
        reason: `the model failed (${agent.outcome}): ${agent.reason ?? 'no detail'}`,
        hint: 'Check the model id and its API key (nightshift doctor), wait if it was a rate limit, then retry.',
      };
    case 'aborted':
      return {
        reason: `${words.activity} was cancelled (${agent.reason ?? 'aborted'})`,
        hint: 'Run it again.',
      };
    case 'step_limit':
    case 'time_limit':
      return {
        reason: `it reached its ${agent.outcome === 'step_limit' ? 'step' : 'time'} limit without an accepted ${noun}`,
        hint: `Try again, or ${words.otherModel.replace('another', 'a stronger')}.`,
      };
    default:
      return {
        reason: `it stopped without submitting a ${noun}${agent.reason ? ` (${agent.reason})` : ''}`,
        hint: `Try again, or ${words.otherModel}.`,
      };
  }
}
