/**
 * The mistake schedule: which mistake (if any) a session makes, as a pure function of the seed, the session's
 * subject (role and feature) and its ordinal (how many sessions of that subject came before). Each mistake owns a
 * fixed slice of [0, 1) as wide as its rate, so the rates hold exactly per session; a subject never makes the same
 * mistake twice (the model learns from the feedback), and a mistake the session cannot make is none.
 */
import { unitHash } from '../policies/seeded.js';
import type { MistakeRates } from './options.js';

/** The mistakes a simulated session can make, in the order their slices are laid out. */
export const MISTAKE_KINDS = [
  'appDoesNotStart',
  'halfDone',
  'noCommit',
  'cutAtLimit',
  'regression',
  'burst',
] as const satisfies readonly (keyof MistakeRates)[];
export type MistakeKind = (typeof MISTAKE_KINDS)[number];

/** What decides a session's mistake. */
export interface ScheduleInput {
  seed: number;
  rates: MistakeRates;
  /** Role and feature(s), e.g. `generator:F-003`. */
  subject: string;
  /** 0 for the subject's first session. */
  ordinal: number;
  /** The mistakes this session can make at all. */
  applicable: readonly MistakeKind[];
}

/** The slice of [0, 1) the draw fell in, ignoring what was already made. */
function drawn(input: Omit<ScheduleInput, 'applicable'>, ordinal: number): MistakeKind | undefined {
  const draw = unitHash(`${input.seed}:mistake:${input.subject}:${ordinal}`);
  let start = 0;
  for (const kind of MISTAKE_KINDS) {
    const end = start + input.rates[kind];
    if (draw >= start && draw < end) return kind;
    start = end;
  }
  return undefined;
}

/** The mistake of this session, or undefined: drawn, applicable, and not drawn by an earlier session of the subject. */
export function mistakeOf(input: ScheduleInput): MistakeKind | undefined {
  const kind = drawn(input, input.ordinal);
  if (!kind || !input.applicable.includes(kind)) return undefined;
  for (let earlier = 0; earlier < input.ordinal; earlier += 1) {
    if (drawn(input, earlier) === kind) return undefined;
  }
  return kind;
}

/** Whether the evaluator fails this feature although its check passed (per verdict; never a false pass). */
export function isFalseFail(seed: number, rate: number, featureId: string, ordinal: number): boolean {
  return unitHash(`${seed}:false-fail:${featureId}:${ordinal}`) < rate;
}

/** An index in [0, count) for a seeded choice (an evaluator's wording style). */
export function seededChoice(seed: number, key: string, count: number): number {
  return Math.min(count - 1, Math.floor(unitHash(`${seed}:choice:${key}`) * count));
}
