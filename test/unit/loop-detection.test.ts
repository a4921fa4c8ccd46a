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
