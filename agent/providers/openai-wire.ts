import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type {
  AssistantMessage,
  Message,
  ModelRequest,
  StopReason,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
  Usage,
  UserMessage,
} from '../messages.js';
import { toolCallFromRaw } from './shared.js';

/** Which flavour of the Chat Completions API we talk to. */
export type OpenAIFlavour = 'openai' | 'openai-compatible';

function userTurn(message: UserMessage): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const parts: ChatCompletionContentPart[] = [];
  const results = message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
  for (const result of results) {
    out.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
    const images = result.images ?? [];
    if (images.length === 0) continue;
    // Tool messages carry text only, so images follow in a user message that says where they came from.
    parts.push({ type: 'text', text: `Images from tool call ${result.toolCallId}:` });
    for (const image of images) {
      parts.push({ type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.base64}` } });
    }
  }
  const texts = message.content.filter((b): b is TextBlock => b.type === 'text' && b.text !== '');
  if (parts.length === 0 && texts.length === 1 && texts[0]) {
    out.push({ role: 'user', content: texts[0].text });
  } else {
    for (const text of texts) parts.push({ type: 'text', text: text.text });
    if (parts.length > 0) out.push({ role: 'user', content: parts });
  }
  if (out.length === 0) out.push({ role: 'user', content: '(empty)' });
  return out;
}

function assistantTurn(message: AssistantMessage): ChatCompletionMessageParam {
  const text = message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const calls = message.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
  if (calls.length === 0) return { role: 'assistant', content: text };
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    // Arguments that failed to parse go back as `{}`: some servers reject invalid JSON in the history.
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  };
}

/** Our conversation as Chat Completions messages, the system prompt first. */
export function toOpenAIMessages(system: string, messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'user') out.push(...userTurn(message));
    else out.push(assistantTurn(message));
  }
  return out;
}

/**
 * The request body (without `stream`). OpenAI's own models take `max_completion_tokens`; compatible
 * servers (Ollama, vLLM, older proxies) commonly know only `max_tokens`.
 */
export function toOpenAIParams(
  model: string,
  request: ModelRequest,
  flavour: OpenAIFlavour,
): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = {
    model,
    messages: toOpenAIMessages(request.system, request.messages),
  };
  if (flavour === 'openai') params.max_completion_tokens = request.maxTokens;
  else params.max_tokens = request.maxTokens;
  if (request.tools.length > 0) {
    params.tools = request.tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }),
    );
  }
  return params;
}

/** Our stop reason for a `finish_reason`; a reply with tool calls is `tool_use` whatever the server said. */
export function mapOpenAIFinishReason(reason: string | null | undefined, hasToolCalls: boolean): StopReason {
  if (hasToolCalls) return 'tool_use';
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    default:
      return 'other';
  }
}

/** Our usage from the API's; `inputTokens` excludes the cached part of the prompt. */
export function fromOpenAIUsage(usage: ChatCompletion['usage'] | null | undefined): Usage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** Our content from a non-streamed reply. */
export function fromOpenAICompletion(completion: ChatCompletion): Array<TextBlock | ToolCallBlock> {
  const message = completion.choices[0]?.message;
  const content: Array<TextBlock | ToolCallBlock> = [];
  if (!message) return content;
  if (message.content) content.push({ type: 'text', text: message.content });
  (message.tool_calls ?? []).forEach((call, index) => {
    if (call.type !== 'function') return;
    content.push(
      toolCallFromRaw(call.id || `call_${index}`, call.function.name, call.function.arguments ?? ''),
    );
  });
  return content;
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/** Assembles a streamed reply chunk by chunk; tool calls arrive as fragments keyed by `index`. */
export class OpenAIStreamAssembler {
  private text = '';
  private readonly calls = new Map<number, PartialCall>();
  /** Model id the server reported. */
  model = '';
  /** Raw finish reason; null until the last choice chunk: without it the stream died midway. */
  finishReason: string | null = null;
  /** Usage from the final chunk (`stream_options.include_usage`). */
  usage: Usage = fromOpenAIUsage(undefined);

  constructor(private readonly onTextDelta?: (text: string) => void) {}

  /** Applies one chunk. */
  apply(chunk: ChatCompletionChunk): void {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = fromOpenAIUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.content) {
      this.text += delta.content;
      this.onTextDelta?.(delta.content);
    }
    for (const fragment of delta.tool_calls ?? []) {
      const call = this.calls.get(fragment.index) ?? { id: '', name: '', args: '' };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.args += fragment.function.arguments;
      this.calls.set(fragment.index, call);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** The reply content: text first, then tool calls in index order. */
  content(): Array<TextBlock | ToolCallBlock> {
    const content: Array<TextBlock | ToolCallBlock> = [];
    if (this.text !== '') content.push({ type: 'text', text: this.text });
    const ordered = [...this.calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, call] of ordered)
      content.push(toolCallFromRaw(call.id || `call_${index}`, call.name, call.args));
    return content;
  }
}
