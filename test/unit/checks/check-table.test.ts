import { describe, expect, it } from 'vitest';
import { formatCheckTable } from '../../../cli/checks.js';

describe('checks run table', () => {
  it('lists each feature with its version, result, time and failed step, then the counts', () => {
    const table = formatCheckTable([
      { featureId: 'F-001', version: 2, ok: true, durationMs: 180 },
      {
        featureId: 'F-002',
        version: 1,
        ok: false,
        durationMs: 3210,
        failure: 'expectation 2: text "Buy milk" is visible (no visible element shows this text)',
      },
    ]);
    const lines = table.split('\n');
    expect(lines[1]).toMatch(/^F-001 +v2 +green +180 ms$/);
    expect(lines[2]).toMatch(/^F-002 +v1 +RED +3210 ms {2}expectation 2: text "Buy milk" is visible/);
    expect(lines.at(-1)).toBe('1 green, 1 red (no model requests)');
  });

  it('says how checks come to exist when there are none', () => {
    expect(formatCheckTable([])).toContain('a check is recorded when the evaluator passes a feature');
  });
});
