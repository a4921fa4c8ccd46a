import { afterEach, beforeEach } from 'vitest';
import type {
  Message,
  ModelProvider,
  ModelRequest,
  ProviderResult,
  ToolSchema,
} from '../../../agent/messages.js';
import { createAnthropicProvider, createOpenAIProvider } from '../../../agent/providers/index.js';
import { startModelServer } from '../../../testkit/server.js';
import type { ModelServer } from '../../../testkit/types.js';

/** The two wire formats every provider test runs against. */
export const FLAVOURS = ['anthropic', 'openai'] as const;
export type Flavour = (typeof FLAVOURS)[number];

/** Options a test varies. */
export interface ProviderKnobs {
  stream?: boolean;
  maxRetries?: number;
  timeoutMs?: number;
}

/** A real provider (real SDK over HTTP) pointed at the scripted server. */
export function providerFor(flavour: Flavour, server: ModelServer, knobs: ProviderKnobs = {}): ModelProvider {
  const common = {
    apiKey: 'test-key',
    maxRetries: knobs.maxRetries ?? 0,
    timeoutMs: knobs.timeoutMs,
    stream: knobs.stream,
  };
  return flavour === 'anthropic'
    ? createAnthropicProvider({ ...common, model: 'claude-test', baseURL: server.anthropicBaseURL })
    : createOpenAIProvider({ ...common, model: 'gpt-test', baseURL: server.openaiBaseURL });
}

/** Two small tools. */
export const TOOLS: ToolSchema[] = [
  {
    name: 'read',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'bash',
    description: 'Run a command',
    inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

/** A user message with one text block. */
export function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** A request with the standard system prompt and tools. */
export function requestOf(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: 'You are a careful engineer.', messages, tools: TOOLS, maxTokens: 1024, ...extra };
}

/** A 1x1 PNG, base64. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The failure of a result that must have failed. */
export function failureOf(result: ProviderResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.response.content)}`);
  return result.failure;
}

/** The response of a result that must have succeeded. */
export function responseOf(result: ProviderResult) {
  if (!result.ok)
    throw new Error(`expected a response, got ${result.failure.kind}: ${result.failure.message}`);
  return result.response;
}

/**
 * A fresh scripted server (answering "Fine.") for each test of the file; read it through the returned getter,
 * and replace it with `set` when a test needs a differently started one.
 */
export function scriptedServerPerTest(): { server: () => ModelServer; set: (next: ModelServer) => void } {
  let current: ModelServer | undefined;
  beforeEach(async () => {
    current = await startModelServer({ policy: () => ({ text: 'Fine.' }) });
  });
  afterEach(async () => {
    await current?.close();
  });
  return {
    server: () => current as ModelServer,
    set: (next) => {
      current = next;
    },
  };
}
