import type {
  AssistantMessage,
  Message,
  ModelProvider,
  ModelRequest,
  ProviderFailure,
  ProviderResult,
  StopReason,
  Usage,
} from '../agent/messages.js';
import type { ResolvedModelSettings } from '../agent/models.js';

/**
 * An in-process model for fast tests of the agent loop: no HTTP, no SDK, each reply scripted in the
 * provider-neutral shape (stop reason, usage, reasoning, refusal, failures). The wire formats themselves are
 * tested through the real SDKs against the scripted server (testkit/server.ts); this fake is for the loop's
 * own logic, like the mock models other agent frameworks ship for their users' tests.
 */

/** One tool call of a scripted reply; the id is generated when omitted. */
export interface FakeToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  /** Raw argument text that did not parse (as a provider reports it). */
  invalidArguments?: string;
  id?: string;
}

/** One scripted reply, or a failure. */
export type FakeStep =
  | { failure: ProviderFailure }
  | {
      text?: string;
      toolCalls?: FakeToolCall[];
      /** Reasoning text (a thinking block); `signature` makes it Anthropic-style signed thinking. */
      thinking?: string;
      signature?: string;
      /** Default: `tool_use` when there are tool calls, else `end_turn`. */
      stopReason?: StopReason;
      /** Reported usage; default: a quarter of the request's bytes as input, 10 output tokens. */
      usage?: Partial<Usage>;
      reasoningTokens?: number;
      refusal?: string;
    };

/** What a script sees: the request (a deep copy, safe to keep) and its 0-based index. */
export type FakeScript = FakeStep[] | ((request: ModelRequest, index: number) => FakeStep);

/** A fake provider, with every request it received. */
export interface FakeProvider extends ModelProvider {
  /** Each request as sent: a deep copy of its messages and options (no signal, no callbacks). */
  readonly requests: Array<Omit<ModelRequest, 'signal' | 'onTextDelta'>>;
}

/** Options of {@link createFakeProvider}. */
export interface FakeProviderOptions {
  id?: string;
  settings?: ResolvedModelSettings;
}

let nextId = 0;

function defaultUsage(messages: Message[]): Usage {
  return {
    inputTokens: Math.ceil(Buffer.byteLength(JSON.stringify(messages)) / 4),
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

function reply(step: Exclude<FakeStep, { failure: ProviderFailure }>, request: ModelRequest): ProviderResult {
  const content: AssistantMessage['content'] = [];
  if (step.thinking !== undefined) {
    content.push({
      type: 'thinking',
      text: step.thinking,
      ...(step.signature ? { signature: step.signature } : {}),
    });
  }
  if (step.text) {
    content.push({ type: 'text', text: step.text });
    request.onTextDelta?.(step.text);
  }
  for (const call of step.toolCalls ?? []) {
    content.push({
      type: 'tool_call',
      id: call.id ?? `fake_${++nextId}`,
      name: call.name,
      arguments: call.arguments ?? {},
      ...(call.invalidArguments === undefined ? {} : { invalidArguments: call.invalidArguments }),
    });
  }
  const hasCalls = (step.toolCalls ?? []).length > 0;
  return {
    ok: true,
    response: {
      content,
      stopReason: step.stopReason ?? (hasCalls ? 'tool_use' : 'end_turn'),
      usage: { ...defaultUsage(request.messages), ...step.usage },
      ...(step.reasoningTokens === undefined ? {} : { reasoningTokens: step.reasoningTokens }),
      ...(step.refusal === undefined ? {} : { refusal: step.refusal }),
      model: 'fake',
    },
  };
}

/**
 * A `ModelProvider` that answers from a script: an array (one step per request; past its end the model
 * says "done" and stops) or a function of the request. Honours an aborted signal like the real ones.
 */
export function createFakeProvider(script: FakeScript, options: FakeProviderOptions = {}): FakeProvider {
  const requests: FakeProvider['requests'] = [];
  return {
    id: options.id ?? 'fake:model',
    ...(options.settings ? { settings: options.settings } : {}),
    requests,
    async complete(request: ModelRequest): Promise<ProviderResult> {
      const { signal: _signal, onTextDelta: _onTextDelta, ...rest } = request;
      requests.push(structuredClone(rest));
      if (request.signal?.aborted) return { ok: false, failure: { kind: 'aborted', message: 'aborted' } };
      const index = requests.length - 1;
      const step =
        typeof script === 'function' ? script(request, index) : (script[index] ?? { text: 'done' });
      return 'failure' in step ? { ok: false, failure: step.failure } : reply(step, request);
    },
  };
}
