import { describe, expect, it } from 'vitest';
import { checkNode, formatDoctorReport } from '../../../cli/doctor.js';
import { maskUrl, redisOptionsFromUrl } from '../../../cli/redis-probe.js';

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

describe('redis URLs', () => {
  it('turns a URL into BullMQ connection options', () => {
    expect(redisOptionsFromUrl('redis://user:p%40ss@db.example:6380/2')).toEqual({
      host: 'db.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      db: 2,
      maxRetriesPerRequest: null,
    });
    expect(redisOptionsFromUrl('rediss://h')).toMatchObject({ host: 'h', port: 6379, db: 0, tls: {} });
  });

  it('masks the password in messages', () => {
    expect(maskUrl('redis://:secret@h:1')).toBe('redis://:***@h:1');
    expect(maskUrl('redis://h:1')).toBe('redis://h:1');
  });
});
