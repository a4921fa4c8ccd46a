import { describe, expect, it } from 'vitest';
import { describeSchedule, formatWindow, parseScheduleAdd } from '../../../cli/schedule.js';
import { validateCron, validateTimeZone } from '../../../orchestrator/schedules.js';

const now = new Date('2026-03-28T12:00:00.000Z');

describe('validateCron', () => {
  it('gives the next start of 5- and 6-field patterns in the time zone', () => {
    expect(new Date(validateCron('*/2 * * * * *', 'UTC', now.getTime())).toISOString()).toBe(
      '2026-03-28T12:00:02.000Z',
    );
    // 01:00 in Berlin on the night daylight saving time starts (CET, UTC+1).
    expect(new Date(validateCron('0 1 * * *', 'Europe/Berlin', now.getTime())).toISOString()).toBe(
      '2026-03-29T00:00:00.000Z',
    );
    expect(new Date(validateCron('0 1 * * *', 'UTC', now.getTime())).toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    expect(new Date(validateCron('@daily', 'UTC', now.getTime())).toISOString()).toBe(
      '2026-03-29T00:00:00.000Z',
    );
    expect(new Date(validateCron(' 0  1 * * 1-5 ', 'UTC', now.getTime())).toISOString()).toBe(
      '2026-03-30T01:00:00.000Z',
    );
  });

  it.each(['61 * * * *', 'every night', '* * * * * * *', '0 0 30 2 *', '', '1 2 3', '@daily 1', '@midnight'])(
    'rejects %j naming it',
    (cron) => {
      expect(() => validateCron(cron, 'UTC', now.getTime())).toThrow(
        expect.objectContaining({
          code: 'SCHEDULE_CRON_INVALID',
          exitCode: 2,
          message: expect.stringContaining(`"${cron}"`),
          hint: expect.stringContaining('"0 1 * * *"'),
        }),
      );
    },
  );
});

describe('validateTimeZone', () => {
  it('accepts IANA zones and rejects others with an example', () => {
    expect(validateTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(validateTimeZone('UTC')).toBe('UTC');
    expect(() => validateTimeZone('Berlin/Europe')).toThrow(
      expect.objectContaining({
        code: 'SCHEDULE_TZ_INVALID',
        message: 'Unknown time zone "Berlin/Europe".',
        hint: expect.stringContaining('Europe/Berlin'),
      }),
    );
  });
});

describe('parseScheduleAdd', () => {
  it('turns the options into a schedule', () => {
    expect(
      parseScheduleAdd('r-1', { cron: '0 1 * * *', tz: 'Europe/Berlin', for: '6h', budgetUsd: '20' }, now),
    ).toEqual({ runId: 'r-1', cron: '0 1 * * *', tz: 'Europe/Berlin', forMs: 21_600_000, budgetUsd: 20 });
    expect(parseScheduleAdd('r-1', { cron: '  0 1  * * * ', tz: 'UTC' }, now).cron).toBe('0 1 * * *');
    expect(parseScheduleAdd('r-1', { cron: '0 1 * * *', tz: 'UTC', for: '1h30m' }, now)).toEqual({
      runId: 'r-1',
      cron: '0 1 * * *',
      tz: 'UTC',
      forMs: 5_400_000,
    });
  });

  it('defaults the zone to this machine’s', () => {
    expect(parseScheduleAdd('r-1', { cron: '0 1 * * *' }, now).tz).toBe(
      Intl.DateTimeFormat().resolvedOptions().timeZone,
    );
  });

  it.each([
    [{ cron: '0 1 * * *', for: 'six hours' }, 'DURATION_INVALID', '"six hours"'],
    [{ cron: '0 1 * * *', for: '-1h' }, 'DURATION_INVALID', '"-1h"'],
    [{ cron: '0 1 * * *', budgetUsd: '0' }, 'BUDGET_INVALID', '"0"'],
    [{ cron: '0 1 * * *', budgetUsd: '$20' }, 'BUDGET_INVALID', '"$20"'],
    [{ cron: '0 1 * * *', tz: 'CEST' }, 'SCHEDULE_TZ_INVALID', '"CEST"'],
    [{ cron: '1 2 3' }, 'SCHEDULE_CRON_INVALID', '"1 2 3"'],
  ])('rejects %j', (options, code, named) => {
    expect(() => parseScheduleAdd('r-1', options, now)).toThrow(
      expect.objectContaining({ code, exitCode: 2, message: expect.stringContaining(named) }),
    );
  });

  it('rejects a run id that cannot be one', () => {
    expect(() => parseScheduleAdd('run:1', { cron: '0 1 * * *' }, now)).toThrow(
      expect.objectContaining({ code: 'RUN_ID_INVALID' }),
    );
  });
});

describe('output', () => {
  it('formats window lengths and schedules', () => {
    expect(formatWindow(21_600_000)).toBe('6h');
    expect(formatWindow(5_400_000)).toBe('1h30m');
    expect(formatWindow(1_500)).toBe('1s500ms');
    expect(formatWindow(null)).toBe('-');
    expect(
      describeSchedule({
        runId: 'r-1',
        cron: '0 1 * * *',
        tz: 'Europe/Berlin',
        forMs: 21_600_000,
        budgetUsd: 20,
        next: '2026-03-29T00:00:00.000Z',
      }),
    ).toBe(
      'run r-1: "0 1 * * *" (Europe/Berlin), for 6h, at most $20.00 per window; next start 2026-03-29 00:00Z',
    );
  });
});
