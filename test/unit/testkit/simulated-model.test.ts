import { describe, expect, it } from 'vitest';
import { TODO_FEATURES } from '../../../testkit/policies/todo-features.js';
import { falseFail } from '../../../testkit/simulated/evaluator.js';
import { regressionTarget } from '../../../testkit/simulated/generator-mistakes.js';
import {
  fitLognormal,
  isFalseFail,
  latencySampler,
  MISTAKE_KINDS,
  type MistakeKind,
  mistakeOf,
  SimulatedModelOptions,
} from '../../../testkit/simulated/index.js';

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))] as number;
}

const RATES = SimulatedModelOptions.parse({ seed: 1 }).mistakes;

describe('the latency sampler', () => {
  it('fits a lognormal whose median and p95 are the targets', () => {
    const { mu, sigma } = fitLognormal(8_000, 40_000);
    expect(Math.exp(mu)).toBeCloseTo(8_000, 6);
    expect(Math.exp(mu + 1.6448536269514722 * sigma)).toBeCloseTo(40_000, 3);
  });

  it('gives the same latencies for the same seed and other ones for another seed', () => {
    const indexes = Array.from({ length: 50 }, (_, index) => index);
    const first = indexes.map(latencySampler(7));
    expect(indexes.map(latencySampler(7))).toEqual(first);
    expect(indexes.map(latencySampler(8))).not.toEqual(first);
  });

  it('has the empirical median and p95 near the targets over many turns, divided by the compression', () => {
    const sample = latencySampler(42, { compression: 100 });
    const values = Array.from({ length: 20_000 }, (_, index) => sample(index));
    // 20,000 draws: the sampling error of the median is under 2 %, of the p95 under 4 %.
    expect(quantile(values, 0.5)).toBeGreaterThan(80 * 0.95);
    expect(quantile(values, 0.5)).toBeLessThan(80 * 1.05);
    expect(quantile(values, 0.95)).toBeGreaterThan(400 * 0.9);
    expect(quantile(values, 0.95)).toBeLessThan(400 * 1.1);
    expect(Math.max(...values)).toBeLessThanOrEqual(300_000 / 100);
  });

  it('refuses a p95 below the median', () => {
    expect(() => latencySampler(1, { medianMs: 10_000, p95Ms: 5_000 })).toThrow(/p95Ms/);
  });
});

describe('the mistake schedule', () => {
  const firstSessions = (seed: number, count: number, rates = RATES) =>
    Array.from({ length: count }, (_, index) =>
      mistakeOf({ seed, rates, subject: `generator:F-${index}`, ordinal: 0, applicable: MISTAKE_KINDS }),
    );

  it('makes each mistake at its rate per session', () => {
    const drawn = firstSessions(3, 20_000);
    for (const kind of MISTAKE_KINDS) {
      const share = drawn.filter((mistake) => mistake === kind).length / drawn.length;
      // Binomial standard error at 20,000 sessions is at most 0.0022: five of them either way.
      expect(Math.abs(share - RATES[kind]), kind).toBeLessThan(0.011);
    }
    const none = drawn.filter((mistake) => mistake === undefined).length / drawn.length;
    const total = MISTAKE_KINDS.reduce((sum, kind) => sum + RATES[kind], 0);
    expect(Math.abs(none - (1 - total))).toBeLessThan(0.011);
  });

  it('is the same for the same seed and differs for another', () => {
    const raised = { ...RATES, halfDone: 0.3, noCommit: 0.2 };
    expect(firstSessions(11, 200, raised)).toEqual(firstSessions(11, 200, raised));
    expect(firstSessions(12, 200, raised)).not.toEqual(firstSessions(11, 200, raised));
  });

  it('never repeats a mistake on one subject and makes none it cannot make', () => {
    const rates = { ...RATES, halfDone: 0.5, appDoesNotStart: 0.4 };
    for (let feature = 0; feature < 200; feature += 1) {
      const made: MistakeKind[] = [];
      for (let ordinal = 0; ordinal < 6; ordinal += 1) {
        const subject = `generator:F-${feature}`;
        const mistake = mistakeOf({ seed: 5, rates, subject, ordinal, applicable: MISTAKE_KINDS });
        if (mistake) made.push(mistake);
      }
      expect(new Set(made).size).toBe(made.length);
    }
    const onlyBursts = Array.from({ length: 500 }, (_, index) =>
      mistakeOf({ seed: 5, rates, subject: `evaluator:F-${index}`, ordinal: 0, applicable: ['burst'] }),
    );
    expect(onlyBursts.every((mistake) => mistake === undefined || mistake === 'burst')).toBe(true);
  });

  it('refuses rates that add up to more than 1', () => {
    expect(() =>
      SimulatedModelOptions.parse({ seed: 1, mistakes: { halfDone: 0.9, noCommit: 0.2 } }),
    ).toThrow(/more than 1/);
  });

  it('fails a working feature at the false-fail rate, and turns only passes into fails', () => {
    const fails = Array.from({ length: 10_000 }, (_, index) => isFalseFail(9, 0.1, `F-${index}`, 0));
    expect(Math.abs(fails.filter(Boolean).length / fails.length - 0.1)).toBeLessThan(0.01);
    const pass = {
      feature_id: 'F-001',
      verdict: 'pass' as const,
      steps: [
        { step: 'Open the app', ok: true, evidence: '"Todos"' },
        { step: 'The list shows it', ok: true, evidence: '"Buy milk"' },
      ],
      issues: [],
    };
    const turned = falseFail(pass);
    expect(turned.verdict).toBe('fail');
    expect(turned.steps.map((step) => step.ok)).toEqual([true, false]);
    expect(turned.issues[0]).toContain('Step 2 ("The list shows it")');
  });

  it('regresses only an earlier todo feature the current one does not need', () => {
    const [add, persist, complete, remove, remaining] = TODO_FEATURES;
    expect([add, persist, complete].map((feature) => feature && regressionTarget(feature))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(remove && regressionTarget(remove)).toBe("import './features/complete-todo.js';");
    expect(remaining && regressionTarget(remaining)).toBe("import './features/delete-todo.js';");
  });
});
