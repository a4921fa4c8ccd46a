import { describe, expect, it } from 'vitest';
import { formatBytes, OutputCollector, truncateMiddle } from '../../../core/truncate.js';

describe('truncateMiddle', () => {
  it('leaves text within the limit alone', () => {
    expect(truncateMiddle('hello', 10)).toEqual({
      text: 'hello',
      truncated: false,
      omittedBytes: 0,
      totalBytes: 5,
    });
  });

  it('keeps head and tail with a note saying how much was omitted and why', () => {
    const text = `HEAD${'x'.repeat(10_000_000)}TAIL`;
    const out = truncateMiddle(text, 30 * 1024);
    expect(out.truncated).toBe(true);
    expect(out.text.startsWith('HEAD')).toBe(true);
    expect(out.text.endsWith('TAIL')).toBe(true);
    expect(out.text).toMatch(/\[\.\.\. [\d,]+ bytes omitted: output exceeded the 30 KB limit \.\.\.\]/);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(30 * 1024);
    const kept =
      Buffer.byteLength(out.text) - Buffer.byteLength(out.text.match(/\n\[\.\.\..*\]\n/)?.[0] ?? '');
    expect(kept + out.omittedBytes).toBe(Buffer.byteLength(text));
    expect(out.text).toContain(`${out.omittedBytes.toLocaleString('en-US')} bytes omitted`);
  });

  it('never splits a multi-byte character', () => {
    const text = '€'.repeat(5000);
    for (const limit of [200, 201, 202, 203, 1001]) {
      const out = truncateMiddle(text, limit);
      expect(out.text).not.toContain('\uFFFD');
      expect(out.text.replace(/\n\[\.\.\..*\]\n/, '')).toMatch(/^€+$/);
    }
  });
});

describe('OutputCollector', () => {
  it('returns everything when it fits, across chunks', () => {
    const collector = new OutputCollector(1024);
    collector.push(Buffer.from('hello '));
    collector.push(Buffer.from('world'));
    expect(collector.result()).toMatchObject({ text: 'hello world', truncated: false, totalBytes: 11 });
  });

  it('keeps only head and tail of a large stream, in bounded memory, UTF-8 safe', () => {
    const collector = new OutputCollector(4096, 'stdout');
    collector.push(Buffer.from('START-'));
    const chunk = Buffer.from(`${'é'.repeat(1000)}ab`); // odd-sized chunks move the cut around
    for (let i = 0; i < 5000; i++) collector.push(chunk);
    collector.push(Buffer.from('-END'));
    const out = collector.result();
    expect(out.truncated).toBe(true);
    expect(out.totalBytes).toBe(6 + 5000 * chunk.length + 4);
    expect(out.text.startsWith('START-')).toBe(true);
    expect(out.text.endsWith('-END')).toBe(true);
    expect(out.text).not.toContain('\uFFFD');
    expect(out.text).toMatch(/bytes omitted: stdout exceeded the 4 KB limit/);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(4096);
  });

  it('handles one chunk larger than the whole budget', () => {
    const collector = new OutputCollector(100);
    collector.push(Buffer.from(`${'a'.repeat(50)}${'b'.repeat(1000)}${'c'.repeat(50)}`));
    const out = collector.result();
    expect(out.text.startsWith('a')).toBe(true);
    expect(out.text.endsWith('c')).toBe(true);
    expect(out.omittedBytes).toBeGreaterThan(1000);
  });
});

describe('formatBytes', () => {
  it('prints short sizes', () => {
    expect([formatBytes(12), formatBytes(30 * 1024), formatBytes(1.5 * 1024 * 1024)]).toEqual([
      '12 bytes',
      '30 KB',
      '1.5 MB',
    ]);
  });
});
