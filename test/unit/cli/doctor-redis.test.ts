import { describe, expect, it } from 'vitest';
import { checkNode, formatDoctorReport } from '../../../cli/doctor.js';

describe('doctor checks', () => {
  it('requires Node 20 or newer', () => {
    expect(checkNode('20.1.0').status).toBe('ok');
    expect(checkNode('22.0.0').status).toBe('ok');
    expect(checkNode('18.19.0')).toMatchObject({ status: 'fail', fix: 'Install Node 20 or newer.' });
  });

  it('formats a report with marks, fixes and a count', () => {
    const text = formatDoctorReport({
      ok: false,
      checks: [
        { name: 'git', status: 'ok', detail: 'git version 2.39.5', fix: null },
        { name: 'chromium', status: 'fail', detail: 'no executable at /x', fix: 'Install it.' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'ok    git       git version 2.39.5',
      'FAIL  chromium  no executable at /x',
      '                → Install it.',
      '',
      '1 failed, 0 warning(s), 1 ok',
    ]);
  });
});
