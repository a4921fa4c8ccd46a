import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, chmod, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FormatError } from '../../../handoff/errors.js';
import { feedbackPath, readFeedback, writeFeedback } from '../../../handoff/feedback.js';
import type { VerdictRecord } from '../../../handoff/formats.js';
import { checkpointMessage } from '../../../handoff/git.js';
import { checkInitScript } from '../../../handoff/init-script.js';
import { appendProgress, progressSource, progressTail } from '../../../handoff/progress.js';
import { appendVerdict, readVerdicts } from '../../../handoff/verdicts.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ns-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const record: VerdictRecord = {
  featureId: 'F-003',
  verdict: 'fail',
  steps: [
    { step: 'Open the app', ok: true, evidence: 'page loaded' },
    { step: 'Add a todo', ok: false, evidence: 'the list stayed empty\nafter pressing Enter' },
  ],
  issues: ['Console error: TypeError x is undefined'],
  mode: 'evaluate',
  runId: 'run-1',
  session: 4,
  at: '2025-01-01T00:00:00.000Z',
  evidence: ['runs/run-1/evidence/s4.png'],
};

describe('progress log', () => {
  it('appends markdown sections and returns a tail cut at a line start', async () => {
    const now = () => new Date('2025-01-02T03:04:05.000Z');
    expect(await progressSource(dir)).toBeNull();
    expect(await progressTail(dir, 100)).toBe('');
    await appendProgress(dir, { role: 'initializer', session: 1, text: 'Set up.' }, now);
    await appendProgress(
      dir,
      { role: 'generator', session: 2, feature: 'F-001', text: 'Added todos.\nNext: delete.' },
      now,
    );
    const text = await readFile(path.join(dir, 'progress.md'), 'utf8');
    expect(text).toBe(
      '# Progress\n\n## Session 1 · initializer · 2025-01-02T03:04:05.000Z\n\nSet up.\n\n' +
        '## Session 2 · generator · F-001 · 2025-01-02T03:04:05.000Z\n\nAdded todos.\nNext: delete.\n\n',
    );
    const tail = await progressTail(dir, 60);
    expect(tail).toBe('[… earlier progress.md entries omitted …]\nAdded todos.\nNext: delete.\n\n');
    expect(await progressTail(dir, 10_000)).toBe(text);
  });

  it('falls back to the quickstart log', async () => {
    await writeFile(path.join(dir, 'claude-progress.txt'), 'did things\n');
    expect(await progressSource(dir)).toBe('claude-progress.txt');
    expect(await progressTail(dir, 100)).toBe('did things\n');
  });
});

describe('feedback', () => {
  it('renders failing steps with evidence first and reads it back', async () => {
    expect(feedbackPath('F-003')).toBe('.nightshift/feedback/F-003.md');
    expect(() => feedbackPath('../x')).toThrow();
    expect(await readFeedback(dir, 'F-003')).toBeNull();
    await writeFeedback(dir, record);
    const text = (await readFeedback(dir, 'F-003'))!;
    expect(text).toContain('# Feedback for F-003: fail');
    expect(text).toContain('- ✗ Add a todo\n  Evidence: the list stayed empty after pressing Enter');
    expect(text).toContain('- Console error: TypeError x is undefined');
    expect(text.indexOf('Failing steps')).toBeLessThan(text.indexOf('Passing steps'));
  });
});

describe('verdicts.jsonl', () => {
  it('appends validated records and reports invalid lines instead of skipping them', async () => {
    await appendVerdict(dir, record);
    await appendVerdict(dir, { ...record, verdict: 'pass', session: 5 });
    await expect(appendVerdict(dir, { ...record, verdict: 'maybe' as 'pass' })).rejects.toBeInstanceOf(
      FormatError,
    );
    await appendFile(path.join(dir, '.nightshift', 'verdicts.jsonl'), '{"featureId":"F-001"}\nnot json\n');
    const { records, invalid } = await readVerdicts(dir);
    expect(records.map((r) => r.verdict)).toEqual(['fail', 'pass']);
    expect(invalid.map((i) => i.line)).toEqual([3, 4]);
    expect(invalid[0]!.error).toContain('verdict:');
    expect(invalid[1]!.error).toContain('not valid JSON');
  });
});

describe('init.sh convention', () => {
  it('reports a missing script, makes one executable and checks it uses $PORT', async () => {
    expect(await checkInitScript(dir)).toMatchObject({ present: false, problems: ['init.sh is missing'] });
    const file = path.join(dir, 'init.sh');
    await writeFile(file, '#!/bin/bash\nnpm start -- --port 3000\n');
    await chmod(file, 0o644);
    const fixed = await checkInitScript(dir);
    expect(fixed).toMatchObject({ present: true, executable: true, madeExecutable: true, usesPort: false });
    expect(fixed.problems).toHaveLength(1);
    expect((await stat(file)).mode & 0o111).not.toBe(0);
    await writeFile(file, ['#!/bin/bash', 'npm start -- --port "$' + '{PORT}"', ''].join('\n'));
    expect(await checkInitScript(dir)).toMatchObject({ usesPort: true, problems: [] });
  });
});

describe('checkpoint message', () => {
  it('is structured with trailers', () => {
    expect(
      checkpointMessage({
        role: 'evaluator',
        runId: 'r-1',
        session: 3,
        featureId: 'F-010',
        summary: 'verdict',
      }),
    ).toBe(
      'nightshift(evaluator): F-010 verdict\n\nNightshift-Role: evaluator\nNightshift-Run: r-1\nNightshift-Session: 3\nNightshift-Feature: F-010',
    );
  });
});
