/** Handoff, orientation, prefix stability and prompt overhead, from recorded demo runs. */
import { z } from 'zod';
import { prefixStability } from '../testkit/prefix.js';
import type { DemoRunRecord } from './demo-runs.js';
import { type HandoffSample, handoffSamples, orientationSamples } from './handoff-analysis.js';
import { promptOverhead, RoleOverhead } from './prompt-overhead.js';
import { Spread, spread } from './stats.js';

/** The orientation commands the autonomous-coding quickstart's coding prompt mandates before any work. */
export const QUICKSTART_ORIENTATION_COMMANDS = 7;

const Segments = z.object({
  totalMs: Spread,
  gitMs: Spread,
  queueMs: Spread,
  contextMs: Spread,
  otherMs: Spread,
  closeMs: Spread,
  advanceMs: Spread,
  claimMs: Spread,
  prepareMs: Spread,
  sendMs: Spread,
  gitCloseMs: Spread,
  gitPrepareMs: Spread,
});

/** The demo-derived sections of the report. */
export const DemoSection = z.object({
  runs: z.array(
    z.object({ runId: z.string(), sessions: z.number(), requests: z.number(), wallMs: z.number() }),
  ),
  handoff: z.object({
    all: Segments,
    toGenerator: Segments,
    toEvaluator: Segments,
    samples: z.array(z.record(z.string(), z.unknown())),
  }),
  orientation: z.object({
    requestsBeforeFirstEdit: Spread,
    maxRequestsBeforeFirstEdit: z.number().nullable(),
    toolCallsBeforeFirstEdit: Spread,
    sessions: z.number().int(),
    quickstartMandatedCommands: z.number().int(),
  }),
  prefixStability: z.object({
    pairs: z.number().int(),
    meanPercent: z.number().nullable(),
    minPercent: z.number().nullable(),
    sharePercent: Spread,
    pairsBelow95: z.number().int(),
  }),
  promptOverhead: z.array(RoleOverhead),
});
export type DemoSection = z.infer<typeof DemoSection>;

function segments(samples: readonly HandoffSample[]): z.infer<typeof Segments> {
  const of = (key: keyof HandoffSample) =>
    spread(
      samples.map((sample) => sample[key] as number),
      0,
    );
  return {
    totalMs: of('totalMs'),
    gitMs: of('gitMs'),
    queueMs: of('queueMs'),
    contextMs: of('contextMs'),
    otherMs: of('otherMs'),
    closeMs: of('closeMs'),
    advanceMs: of('advanceMs'),
    claimMs: of('claimMs'),
    prepareMs: of('prepareMs'),
    sendMs: of('sendMs'),
    gitCloseMs: of('gitCloseMs'),
    gitPrepareMs: of('gitPrepareMs'),
  };
}

const percent = (value: number | null) => (value === null ? null : Number((value * 100).toFixed(2)));

/** Builds the demo sections from one or more recorded runs. */
export function demoSection(records: readonly DemoRunRecord[]): DemoSection {
  const handoffs = records.flatMap((record) => handoffSamples(record));
  const orientation = records.flatMap((record) => orientationSamples(record.events));
  const edits = orientation
    .map((sample) => sample.requestsBeforeFirstEdit)
    .filter((value): value is number => value !== null);
  const stability = records.map((record) => prefixStability(record.requests));
  const shares = stability.flatMap((report) => report.shares.map((entry) => entry.share));
  const allRequests = records.flatMap((record) => record.requests);
  return {
    runs: records.map((record) => ({
      runId: record.runId,
      sessions: record.sessions,
      requests: record.requests.length,
      wallMs: record.wallMs,
    })),
    handoff: {
      all: segments(handoffs),
      toGenerator: segments(handoffs.filter((sample) => sample.toRole === 'generator')),
      toEvaluator: segments(handoffs.filter((sample) => sample.toRole === 'evaluator')),
      samples: handoffs.map((sample) => ({ ...sample })),
    },
    orientation: {
      requestsBeforeFirstEdit: spread(edits, 1),
      maxRequestsBeforeFirstEdit: edits.length ? Math.max(...edits) : null,
      toolCallsBeforeFirstEdit: spread(
        orientation.map((sample) => sample.toolCallsBefore),
        1,
      ),
      sessions: orientation.length,
      quickstartMandatedCommands: QUICKSTART_ORIENTATION_COMMANDS,
    },
    prefixStability: {
      pairs: shares.length,
      meanPercent: percent(shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : null),
      minPercent: percent(shares.length ? Math.min(...shares) : null),
      sharePercent: spread(
        shares.map((share) => share * 100),
        2,
      ),
      pairsBelow95: shares.filter((share) => share < 0.95).length,
    },
    promptOverhead: promptOverhead(allRequests),
  };
}
