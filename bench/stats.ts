import os from 'node:os';
import { z } from 'zod';

/** A figure over repeated measurements: median and spread, in the unit named beside it. */
export const Spread = z.object({
  n: z.number().int().nonnegative(),
  median: z.number().nullable(),
  p10: z.number().nullable(),
  p90: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});
export type Spread = z.infer<typeof Spread>;

/** Value at quantile `q` (0–1) of sorted values, linearly interpolated. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (at - low);
}

/** Median, p10, p90, min and max of the samples (nulls when there are none), rounded to `digits`. */
export function spread(samples: readonly number[], digits = 1): Spread {
  const sorted = samples.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0, median: null, p10: null, p90: null, min: null, max: null };
  const round = (value: number) => Number(value.toFixed(digits));
  return {
    n: sorted.length,
    median: round(quantile(sorted, 0.5)),
    p10: round(quantile(sorted, 0.1)),
    p90: round(quantile(sorted, 0.9)),
    min: round(sorted[0] as number),
    max: round(sorted.at(-1) as number),
  };
}

/** `median (p10–p90, n=N)` for a report cell; `—` without samples. */
export function formatSpread(value: Spread, unit = ''): string {
  if (value.median === null) return '—';
  return `${value.median}${unit} (p10 ${value.p10}–p90 ${value.p90}, n=${value.n})`;
}

/** The 1, 5 and 15 minute load averages and the core count, for judging how noisy a figure is. */
export const LoadSample = z.object({
  at: z.string(),
  loadavg: z.tuple([z.number(), z.number(), z.number()]),
  cores: z.number().int(),
});
export type LoadSample = z.infer<typeof LoadSample>;

/** Samples the machine's load now. */
export function sampleLoad(): LoadSample {
  const [one, five, fifteen] = os.loadavg();
  return {
    at: new Date().toISOString(),
    loadavg: [Number(one?.toFixed(2)), Number(five?.toFixed(2)), Number(fifteen?.toFixed(2))],
    cores: os.cpus().length,
  };
}

/** Milliseconds between two ISO timestamps (or epoch ms). */
export function msBetween(from: string | number, to: string | number): number {
  const a = typeof from === 'number' ? from : Date.parse(from);
  const b = typeof to === 'number' ? to : Date.parse(to);
  return b - a;
}
