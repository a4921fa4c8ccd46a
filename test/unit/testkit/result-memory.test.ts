import { describe, expect, it } from 'vitest';
import type { Message } from '../../../agent/messages.js';
import { ELIDED_PREFIX } from '../../../agent/session.js';
import { ToolResultMemory } from '../../../testkit/result-memory.js';

function resultTurn(callId: string, content: string): Message {
  return { role: 'user', content: [{ type: 'tool_result', toolCallId: callId, content, isError: false }] };
}

const elided = `${ELIDED_PREFIX} to keep the context small: an older browser_click result of 900 bytes.]`;

describe('the scripted model remembers what it read', () => {
  it('puts an elided result back as first read, and leaves what it never saw elided', () => {
    const memory = new ToolResultMemory();
    memory.recall([resultTurn('call_a', 'Snapshot:\n- list "Todos"')]);
    const later = memory.recall([resultTurn('call_a', elided), resultTurn('call_b', elided)]);
    expect(later.map((message) => (message.content[0] as { content: string }).content)).toEqual([
      'Snapshot:\n- list "Todos"',
      elided,
    ]);
  });

  it('keeps the first reading of a call id and forgets the oldest past its limit', () => {
    const memory = new ToolResultMemory(10);
    memory.recall([resultTurn('call_a', 'aaaaaa'), resultTurn('call_a', 'changed')]);
    memory.recall([resultTurn('call_b', 'bbbbbb')]);
    const later = memory.recall([resultTurn('call_a', elided), resultTurn('call_b', elided)]);
    expect(later.map((message) => (message.content[0] as { content: string }).content)).toEqual([
      elided,
      'bbbbbb',
    ]);
  });
});
