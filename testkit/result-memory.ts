/**
 * What the scripted model has read. A scripted session is re-run from the start on every request and decides
 * from the tool results in the conversation; once the harness elides old results to keep the context small, a
 * replay would decide differently from the first run (a page it read becomes a one-line note) and lose track. A
 * real model decided when it read the result and keeps that decision in its own past replies; the memory gives a
 * replay the result as it was first read, which is what the decision was made on.
 */

import type { Message } from '../agent/messages.js';
import { ELIDED_PREFIX } from '../agent/session.js';

/** Most bytes of results kept; the oldest are forgotten first (a replay past that loses track, as before). */
const DEFAULT_LIMIT_BYTES = 64 * 1024 * 1024;

/** Tool results by tool call id, as first seen whole. */
export class ToolResultMemory {
  private readonly byCallId = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly limitBytes = DEFAULT_LIMIT_BYTES) {}

  /**
   * Remembers every whole result in `messages` and returns the messages with each elided result the memory
   * holds put back as first read. The input is not changed.
   */
  recall(messages: readonly Message[]): Message[] {
    return messages.map((message) => {
      if (message.role !== 'user') return message;
      let restored = false;
      const content = message.content.map((block) => {
        if (block.type !== 'tool_result') return block;
        if (!block.content.startsWith(ELIDED_PREFIX)) {
          this.remember(block.toolCallId, block.content);
          return block;
        }
        const original = this.byCallId.get(block.toolCallId);
        if (original === undefined) return block;
        restored = true;
        return { ...block, content: original };
      });
      return restored ? { ...message, content } : message;
    });
  }

  private remember(callId: string, content: string): void {
    if (this.byCallId.has(callId)) return;
    this.byCallId.set(callId, content);
    this.bytes += content.length;
    for (const [oldest, text] of this.byCallId) {
      if (this.bytes <= this.limitBytes) break;
      this.byCallId.delete(oldest);
      this.bytes -= text.length;
    }
  }
}
