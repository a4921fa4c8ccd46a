import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Message, ModelProvider, ToolResultBlock } from '../../../agent/messages.js';
import { createAnthropicProvider, createOpenAIProvider } from '../../../agent/providers/index.js';
import type { ModelServer, ScriptedConversation } from '../../../testkit/types.js';

/** A fresh real directory (symlinks resolved) for one test's workspace. */
export function tempWorkspace(prefix = 'ns-loop-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Both real SDK-backed providers pointed at the scripted server. */
export function providersFor(
  server: ModelServer,
  maxRetries = 0,
): Record<'anthropic' | 'openai', ModelProvider> {
  return {
    anthropic: createAnthropicProvider({
      model: 'scripted',
      apiKey: 'sk-ant-test-key-123456',
      baseURL: server.anthropicBaseURL,
      maxRetries,
      timeoutMs: 5_000,
    }),
    openai: createOpenAIProvider({
      model: 'scripted',
      apiKey: 'sk-openai-test-key-123456',
      baseURL: server.openaiBaseURL,
      maxRetries,
      timeoutMs: 5_000,
    }),
  };
}

/** How many assistant turns the conversation already has. */
export function turnOf(conversation: ScriptedConversation): number {
  return conversation.messages.filter((message) => message.role === 'assistant').length;
}

/** Tool results of the last user message. */
export function lastResults(conversation: ScriptedConversation): ToolResultBlock[] {
  const last = conversation.messages.at(-1) as Message | undefined;
  if (last?.role !== 'user') return [];
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

/** All text of the last user message (harness notes included). */
export function lastUserText(conversation: ScriptedConversation): string {
  const last = conversation.messages.at(-1);
  if (last?.role !== 'user') return '';
  return last.content.map((block) => (block.type === 'text' ? block.text : block.content)).join('\n');
}
