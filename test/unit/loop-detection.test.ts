import { describe, expect, it } from 'vitest';
import { LoopDetector } from '../../agent/loop-detection.js';
import type { ToolCallBlock } from '../../agent/messages.js';

const call = (name: string, args: Record<string, unknown>, id = 'c'): ToolCallBlock => ({
  type: 'tool_call',
  id,
  name,
  arguments: args,
});

describe('LoopDetector', () => {
  it('refuses the third identical call in a row, whatever the key order', () => {
    const detector = new LoopDetector();
    expect(detector.observe(call('bash', { command: 'ls', timeout_ms: 5 })).kind).toBe('ok');
    expect(detector.observe(call('bash', { timeout_ms: 5, command: 'ls' })).kind).toBe('ok');
    const third = detector.observe(call('bash', { command: 'ls', timeout_ms: 5 }));
    expect(third).toMatchObject({ kind: 'deny', detectedKind: 'repeated_call' });
  });

  it('does not refuse a repeated call whose previous run changed the page ("click + three times")', () => {
    const detector = new LoopDetector();
    const plus = call('browser_click', { ref: 'e7' });
    for (let i = 0; i < 5; i += 1) {
      expect(detector.observe(plus).kind).toBe('ok');
      detector.noteResult({ content: 'Clicked e7.', details: { pageChanged: true } });
    }
    // Once the page stops changing, repeats count again: the third unchanged one in a row is refused.
    expect(detector.observe(plus).kind).toBe('ok');
    detector.noteResult({ content: 'Clicked e7.', details: { pageChanged: false } });
    expect(detector.observe(plus).kind).toBe('ok');
    detector.noteResult({ content: 'Clicked e7.', details: { pageChanged: false } });
    expect(detector.observe(plus)).toMatchObject({ kind: 'deny', detectedKind: 'repeated_call' });
  });

  it('resets the count when a different call comes between', () => {
    const detector = new LoopDetector();
    detector.observe(call('bash', { command: 'ls' }));
    detector.observe(call('bash', { command: 'ls' }));
    detector.observe(call('read', { path: 'a' }));
    expect(detector.observe(call('bash', { command: 'ls' })).kind).toBe('ok');
  });

  it('warns once past the edit limit for one file and refuses past twice the limit', () => {
    const detector = new LoopDetector({ editLimit: 2, repeatLimit: 100 });
    const kinds = Array.from(
      { length: 6 },
      (_, i) =>
        detector.observe(call('edit', { path: 'app.js', old_string: `${i}`, new_string: `${i + 1}` })).kind,
    );
    expect(kinds).toEqual(['ok', 'ok', 'warn', 'ok', 'deny', 'deny']);
    expect(detector.observe(call('edit', { path: 'other.js', old_string: 'a', new_string: 'b' })).kind).toBe(
      'ok',
    );
  });
});
