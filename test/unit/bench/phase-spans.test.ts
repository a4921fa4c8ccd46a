import { afterEach, describe, expect, it } from 'vitest';
import { mergePhases, type PhaseRecorder, phaseTable, recordPhases } from '../../../bench/phase-spans.js';
import { inSpan } from '../../../core/trace.js';

let recorder: PhaseRecorder | undefined;
afterEach(async () => {
  await recorder?.stop();
  recorder = undefined;
});

describe('phase spans', () => {
  it('sums spans by name under the session or merge they ran in, git and tools folded', async () => {
    recorder = recordPhases();
    let later: Promise<void> | undefined;
    await inSpan('session generator', {}, async () => {
      await inSpan('workspace.prepare', {}, async () => {
        await inSpan('git fetch', {}, async () => undefined);
        await inSpan('git checkout', {}, async () => undefined);
      });
      await inSpan('role.prepare', {}, async () => {
        // Started inside, run after the span ended (an app started ahead): still the generator's.
        later = new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
          inSpan('app.copy', {}, async () => undefined),
        );
      });
      await inSpan('tool bash', {}, async () => undefined);
    });
    await later;
    await inSpan('merge', {}, () => inSpan('checks.replay', {}, async () => undefined));
    await inSpan('app.start', {}, async () => undefined);
    const totals = recorder.totals();
    expect(Object.keys(totals).sort()).toEqual([
      '- / app.start',
      'generator / app.copy',
      'generator / git',
      'generator / role.prepare',
      'generator / session generator',
      'generator / tool',
      'generator / workspace.prepare',
      'merge / checks.replay',
      'merge / merge',
    ]);
    expect(totals['generator / git']?.n).toBe(2);
  });

  it('records again after an earlier recorder stopped (each span asks for the provider registered now)', async () => {
    const first = recordPhases();
    await inSpan('session evaluator', {}, () => inSpan('app.copy', {}, async () => undefined));
    await first.stop();
    recorder = recordPhases();
    await inSpan('merge', {}, () => inSpan('app.copy', {}, async () => undefined));
    expect(Object.keys(first.totals()).sort()).toEqual([
      'evaluator / app.copy',
      'evaluator / session evaluator',
    ]);
    expect(Object.keys(recorder.totals()).sort()).toEqual(['merge / app.copy', 'merge / merge']);
  });

  it('adds the workers together and tabulates a column per build', () => {
    const one = { 'generator / git': { n: 2, ms: 100 } };
    const two = { 'generator / git': { n: 1, ms: 50 }, 'merge / merge': { n: 1, ms: 2000 } };
    const merged = mergePhases([one, two]);
    expect(merged).toEqual({ 'generator / git': { n: 3, ms: 150 }, 'merge / merge': { n: 1, ms: 2000 } });
    const table = phaseTable([
      { label: '1 lane', phases: one },
      { label: '4 lanes', phases: merged },
    ]);
    expect(table[0]).toBe('| phase | 1 lane | 4 lanes |');
    expect(table).toContain('| generator / git | 2 × 0.05 s | 3 × 0.05 s |');
    expect(table).toContain('| merge / merge | — | 1 × 2.00 s |');
  });
});
