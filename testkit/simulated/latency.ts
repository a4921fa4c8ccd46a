/** Seeded turn latencies: a lognormal fitted to a median and a 95th percentile, compressed for tests and benches. */
import { unitHash } from '../policies/seeded.js';
import { LatencyOptions } from './options.js';

/** The standard normal's 95th percentile. */
const Z_95 = 1.6448536269514722;

/** The lognormal's parameters (of the log of the latency in ms) that put its median and p95 where asked. */
export function fitLognormal(medianMs: number, p95Ms: number): { mu: number; sigma: number } {
  return { mu: Math.log(medianMs), sigma: Math.log(p95Ms / medianMs) / Z_95 };
}

/** A standard normal draw from two seeded uniforms (Box–Muller). */
function normalDraw(seed: number, index: number): number {
  const u1 = unitHash(`${seed}:latency:${index}:radius`);
  const u2 = unitHash(`${seed}:latency:${index}:angle`);
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * A latency sampler: the n-th request's latency (ms, compressed) is a function of the seed and n alone, so a run
 * that asks in the same order waits the same.
 */
export function latencySampler(seed: number, input: Partial<LatencyOptions> = {}): (index: number) => number {
  const options = LatencyOptions.parse(input);
  const { mu, sigma } = fitLognormal(options.medianMs, options.p95Ms);
  return (index) =>
    Math.min(options.maxMs, Math.exp(mu + sigma * normalDraw(seed, index))) / options.compression;
}
