import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDeps } from '../../../cli/context.js';
import { createProgressRenderer } from '../../../cli/progress.js';
import { stampedWhenLogged, terminalSink } from '../../../cli/terminal-text.js';
import { hasControls, indentContinuation, oneLine, printable } from '../../../core/terminal-text.js';

// Every character a terminal could obey: C0 but tab and newline, DEL, C1.
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, code) => code).filter((code) => code !== 0x09 && code !== 0x0a),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, code) => 0x80 + code),
].map((code) => String.fromCharCode(code));

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function buffer(options: { isTTY?: boolean; columns?: number } = {}) {
  const out = {
    text: '',
    ...options,
    write: (chunk: string) => {
      out.text += chunk;
      return true;
    },
  };
  return out;
}

describe('printable', () => {
  it('escapes every C0 control but tab and newline as \\xNN, DEL and C1 as \\u00NN', () => {
    expect(printable('\u001b]52;c;ZXZpbA==\u0007')).toBe('\\x1b]52;c;ZXZpbA==\\x07');
    expect(printable('\u0000\r\u000b\u000c\u001f')).toBe('\\x00\\x0d\\x0b\\x0c\\x1f');
    expect(printable('\u007f\u0080\u0085\u009b2J\u009d0;t\u009c')).toBe(
      '\\u007f\\u0080\\u0085\\u009b2J\\u009d0;t\\u009c',
    );
    for (const control of CONTROLS) {
      expect(printable(`a${control}b`)).not.toMatch(RAW_CONTROL);
      expect(printable(`a${control}b`)).toMatch(/^a\\(x|u00)[0-9a-f]{2}b$/);
    }
  });

  it('keeps tab, newline, printable text and other Unicode as they are; lone surrogates pass through', () => {
    const text = 'a\tb\nc — ünï ✓ 日本 \u00a0 \u00ff \ud83d\ude00 end';
    expect(printable(text)).toBe(text);
    expect(printable('x\ud800y\udc00z')).toBe('x\ud800y\udc00z');
    expect(hasControls(text)).toBe(false);
    expect(hasControls('\u009b')).toBe(true);
  });

  it('escaped C1 and DEL stay valid JSON that means the same text', () => {
    const json = JSON.stringify({ reason: 'a\u001b[2J\u009b2J\u007f' });
    expect(JSON.parse(printable(json))).toEqual({ reason: 'a\u001b[2J\u009b2J\u007f' });
  });
});

describe('oneLine and indentContinuation', () => {
  it('oneLine: a forged line of ours becomes part of the one line', () => {
    const forged = 'ok\r\nnightshift: run done (all features pass)\n\u001b]0;pwned\u0007';
    const line = oneLine(forged);
    expect(line).toBe('ok nightshift: run done (all features pass) \\x1b]0;pwned\\x07');
    expect(line).not.toContain('\n');
    expect(oneLine('  one\n two  three ', 9)).toBe('one two …');
  });

  it('indentContinuation keeps the lines, each after the first indented, CR escaped or joined', () => {
    expect(indentContinuation('Which colours?\r\nnightshift: run done\n\u009b2J')).toBe(
      'Which colours?\n   nightshift: run done\n   \\u009b2J',
    );
    expect(indentContinuation('a\rb', ' > ')).toBe('a\n > b');
  });
});

describe('terminalSink', () => {
  it('escapes what is written, keeps newlines, and passes isTTY and the width on', () => {
    const out = buffer({ isTTY: true, columns: 120 });
    const sink = terminalSink(out);
    sink.write('title \u001b]0;pwned\u0007 clip \u001b]52;c;ZXZpbA==\u0007\n\u009b31m');
    expect(out.text).toBe('title \\x1b]0;pwned\\x07 clip \\x1b]52;c;ZXZpbA==\\x07\n\\u009b31m');
    expect(sink.isTTY).toBe(true);
    expect(sink.columns).toBe(120);
    out.columns = 80;
    expect(sink.columns).toBe(80);
    expect(terminalSink(sink)).toBe(sink);
  });

  it('erasing the line is the one raw control sequence, and only through eraseLine', () => {
    const out = buffer();
    const sink = terminalSink(out);
    sink.write('\r\u001b[2K');
    expect(out.text).toBe('\\x0d\\x1b[2K');
    sink.eraseLine();
    expect(out.text).toBe('\\x0d\\x1b[2K\r\u001b[2K');
  });

  it('every command gets sinks: given ones are wrapped too, and a stamped stderr still escapes', () => {
    const stdout = buffer();
    const stderr = buffer();
    const resolved = stampedWhenLogged(resolveDeps({ stdout, stderr }));
    resolved.stdout.write('\u001b[31mred\n');
    resolved.stderr.write('\u009b2J\n');
    expect(stdout.text).toBe('\\x1b[31mred\n');
    expect(stderr.text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \\u009b2J\n$/);
  });

  it('a progress line on a terminal: our erase sequence raw, hostile text in notes and summaries escaped', () => {
    const out = buffer({ columns: 200 });
    const renderer = createProgressRenderer({ stream: out, isTTY: true });
    const features = { total: 1, passing: 0, failing: 1, blocked: 0 };
    renderer.update({
      run: { id: 'r-1', status: 'building', pausedReason: null, features },
      current: null,
      costUsd: 0,
      elapsedMs: 0,
    });
    renderer.note('F-001 fail: \u001b]52;c;ZXZpbA==\u0007');
    renderer.done({
      status: 'failed',
      detail: 'init.sh said\r\nnightshift: run done (all features pass)\n\u001b]0;pwned\u0007',
      features,
      sessions: 1,
      costUsd: 0,
      elapsedMs: 0,
    });
    const withoutOurs = out.text.replaceAll('\r\u001b[2K', '');
    expect(withoutOurs).not.toMatch(RAW_CONTROL);
    expect(out.text).toContain('F-001 fail: \\x1b]52;c;ZXZpbA==\\x07\n');
    expect(withoutOurs.split('\n').filter((line) => line.startsWith('nightshift: run done'))).toEqual([]);
  });
});

describe('the CLI writes only through terminal sinks', () => {
  it('every use of process.stdout or process.stderr in cli/ is wrapped in terminalSink', () => {
    const cliDir = path.resolve(import.meta.dirname, '../../../cli');
    const unwrapped: string[] = [];
    for (const file of fs.readdirSync(cliDir).filter((name) => name.endsWith('.ts'))) {
      const lines = fs.readFileSync(path.join(cliDir, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        const code = line.replace(/\/\*\*.*|^\s*\/\/.*|^\s*\*.*/, '');
        if (/process\.std(out|err)\b/.test(code) && !/terminalSink\(/.test(code)) {
          unwrapped.push(`cli/${file}:${index + 1}: ${line.trim()}`);
        }
      });
    }
    expect(unwrapped).toEqual([]);
  });
});
