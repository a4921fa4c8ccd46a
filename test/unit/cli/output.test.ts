import { describe, expect, it } from 'vitest';
import {
  elapsedMs,
  formatBar,
  formatDuration,
  formatFields,
  formatMoney,
  formatTable,
  formatTimestamp,
  truncate,
} from '../../../cli/output.js';

describe('output formatting', () => {
  it('draws a bar of done/total', () => {
    expect(formatBar(0, 10, 10)).toBe('[░░░░░░░░░░]');
    expect(formatBar(3, 10, 10)).toBe('[███░░░░░░░]');
    expect(formatBar(10, 10, 4)).toBe('[████]');
    expect(formatBar(5, 0, 4)).toBe('[░░░░]');
    expect(formatBar(12, 10, 4)).toBe('[████]');
  });

  it('shows money, and unknown as unknown', () => {
    expect(formatMoney(1.234)).toBe('$1.23');
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(0.001)).toBe('<$0.01');
    expect(formatMoney(null)).toBe('unknown');
    expect(formatMoney(undefined)).toBe('unknown');
    expect(formatMoney(Number.NaN)).toBe('unknown');
  });

  it('shows durations compactly', () => {
    expect(formatDuration(850)).toBe('850ms');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(185_000)).toBe('3m 05s');
    expect(formatDuration(3_720_000)).toBe('1h 02m');
    expect(formatDuration(27 * 3_600_000)).toBe('1d 03h');
    expect(formatDuration(null)).toBe('-');
    expect(formatDuration(-5)).toBe('-');
  });

  it('measures elapsed time from an ISO string', () => {
    const to = new Date('2026-01-01T01:00:00Z');
    expect(elapsedMs('2026-01-01T00:00:00Z', to)).toBe(3_600_000);
    expect(elapsedMs(null, to)).toBeNull();
    expect(elapsedMs('garbage', to)).toBeNull();
  });

  it('formats timestamps in UTC to the minute', () => {
    expect(formatTimestamp('2026-01-31T23:05:59.123Z')).toBe('2026-01-31 23:05Z');
    expect(formatTimestamp(null)).toBe('-');
  });

  it('truncates with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(truncate('abc', 0)).toBe('');
  });

  it('aligns table columns and label fields', () => {
    expect(
      formatTable(
        ['ID', 'STATUS'],
        [
          ['r-1', 'building'],
          ['r-22', 'done'],
        ],
      ),
    ).toBe('ID    STATUS\nr-1   building\nr-22  done');
    expect(
      formatFields([
        ['a', '1'],
        ['long', '2'],
      ]),
    ).toBe('a     1\nlong  2');
  });
});
