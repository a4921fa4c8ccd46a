/**
 * The simulated model's options (zod) and the defaults, each with why. Rates are per session (a generator's mistakes,
 * a burst) or per verdict (a false fail); they are guesses from watching real coding models build small web apps
 * overnight, set so an eight-hour run of ~60 features meets every mistake several times.
 */
import { z } from 'zod';

/** How long a model takes to answer one request: a lognormal fitted to a median and a 95th percentile. */
export const LatencyOptions = z
  .object({
    /** Median turn, ms. 8 s: a coding model writing a tool call or two after reading a ~20k-token prompt. */
    medianMs: z.number().positive().default(8_000),
    /** 95th percentile, ms. 40 s: the turns that write a whole file or think long — a fat right tail. */
    p95Ms: z.number().positive().default(40_000),
    /** Longest turn, ms (before compression): a real client times out around here, so no sample goes past it. */
    maxMs: z.number().positive().default(300_000),
    /** Every latency is divided by this: 1 is real time; 100 makes an 8-hour night a ~5-minute test. */
    compression: z.number().positive().default(1),
  })
  .refine((latency) => latency.p95Ms > latency.medianMs, { message: 'p95Ms must be above medianMs' });
export type LatencyOptions = z.infer<typeof LatencyOptions>;

/** Chance that a generator session makes each mistake (at most one per session; their sum is at most 1). */
export const MistakeRates = z
  .object({
    /**
     * 0.04: imports a module it never wrote, so the server dies at start. Rare with a model that runs its own check,
     * but it happens a few times a night; the app-start log in the feedback makes the next try fix it.
     */
    appDoesNotStart: z.number().min(0).max(1).default(0.04),
    /**
     * 0.1: declares the feature done with a part missing (here: the page never loads its client module). The most
     * common failure of long-running agents ("one-shotting" and stopping early), so the highest rate.
     */
    halfDone: z.number().min(0).max(1).default(0.1),
    /** 0.05: ends with a summary and no commit, deaf to the stop hook; the harness's WIP checkpoint keeps the work. */
    noCommit: z.number().min(0).max(1).default(0.05),
    /** 0.03: a reply writing several whole files runs into the output limit; rare with 32k-token limits. */
    cutAtLimit: z.number().min(0).max(1).default(0.03),
    /**
     * 0.03: while editing a shared file (the module registry) drops an earlier feature's line — a regression only a
     * re-check finds. Only in sessions of a feature that does not need the broken one.
     */
    regression: z.number().min(0).max(1).default(0.03),
    /** 0.02 of sessions (any role) meet a 429/529 burst: provider overloads come in waves a few times a night. */
    burst: z.number().min(0).max(1).default(0.02),
  })
  .refine((rates) => Object.values(rates).reduce((sum, rate) => sum + rate, 0) <= 1, {
    message: 'the mistake rates of a session add up to more than 1',
  });
export type MistakeRates = z.infer<typeof MistakeRates>;

/** A 429/529 burst: several faults in a row on the requests that follow. */
export const BurstOptions = z.object({
  /** 3 in a row: one more than the in-session retries (2), so a burst usually pauses the run once. */
  length: z.number().int().min(1).default(3),
  /** Share of 429 rate limits (the rest are 529 overloads); half and half, as providers mix them under load. */
  rateLimitShare: z.number().min(0).max(1).default(0.5),
  /** `retry-after` the faults send, seconds. */
  retryAfterSeconds: z.number().nonnegative().default(1),
});
export type BurstOptions = z.infer<typeof BurstOptions>;

/** Options of `simulatedModel`. */
export const SimulatedModelOptions = z.object({
  /** One seed for everything: latencies, mistakes, evaluator styles and false fails. Same seed, same run. */
  seed: z.number().int(),
  latency: LatencyOptions.prefault({}),
  mistakes: MistakeRates.prefault({}),
  burst: BurstOptions.prefault({}),
  /**
   * Chance that an evaluator fails a feature that works (per verdict): 0.03, a sceptical evaluator that misreads a
   * page now and then. Never the other way: the simulated evaluator never passes what its check saw fail.
   */
  falseFailRate: z.number().min(0).max(1).default(0.03),
});
/** What `simulatedModel` accepts (defaults filled in by the schema). */
export type SimulatedModelInput = z.input<typeof SimulatedModelOptions>;
export type SimulatedModelOptions = z.infer<typeof SimulatedModelOptions>;
