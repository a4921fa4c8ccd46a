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
import type { ReasoningSettings } from '../models.js';
import {
  IMAGE_OMITTED_NOTE,
  isPlainObject,
  newToolCallId,
  toolCallFromRaw,
  toolCallFromValue,
} from './shared.js';
import { ThinkTagFilter } from './think-filter.js';

/** Which flavour of the Chat Completions API we talk to. */
export type OpenAIFlavour = 'openai' | 'openai-compatible';

function userTurn(message: UserMessage, vision: boolean): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const parts: ChatCompletionContentPart[] = [];
  const results = message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
  for (const result of results) {
    const images = result.images ?? [];
    // A text-only model would answer image parts with a 400: it gets a note where the image was.
    const omitted = images.length > 0 && !vision;
    const content = omitted
      ? result.content === ''
        ? IMAGE_OMITTED_NOTE
        : `${result.content}\n${IMAGE_OMITTED_NOTE}`
      : result.content;
    out.push({ role: 'tool', tool_call_id: result.toolCallId, content });
    if (images.length === 0 || omitted) continue;
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

/** Our assistant turn as a Chat Completions message; reasoning stays out (the API does not take it back). */
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
export function toOpenAIMessages(
  system: string,
  messages: Message[],
  vision = true,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system !== '') out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'user') out.push(...userTurn(message, vision));
    else out.push(assistantTurn(message));
  }
  return out;
}

/**
 * The request body (without `stream`). OpenAI's own models take `max_completion_tokens`; compatible
 * servers (Ollama, vLLM, older proxies) commonly know only `max_tokens`. A reasoning effort from the
 * model's settings goes out as `reasoning_effort`.
 */
export function toOpenAIParams(
  model: string,
  request: ModelRequest,
  flavour: OpenAIFlavour,
  reasoning?: ReasoningSettings,
): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = {
    model,
    messages: toOpenAIMessages(request.system, request.messages, request.vision ?? true),
  };
  if (flavour === 'openai') params.max_completion_tokens = request.maxTokens;
  else params.max_tokens = request.maxTokens;
  if (reasoning?.effort) params.reasoning_effort = reasoning.effort;
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

/**
 * Our stop reason for a `finish_reason`. `length` wins over tool calls: calls cut at the output limit carry
 * incomplete arguments. Otherwise a reply with tool calls is `tool_use` whatever the server said (Ollama
 * ends streamed calls with `stop`). A `refusal` field, or `content_filter`, is a refusal.
 */
export function mapOpenAIFinishReason(
  reason: string | null | undefined,
  hasToolCalls: boolean,
  refused = false,
): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (refused || reason === 'content_filter') return 'refusal';
  if (hasToolCalls) return 'tool_use';
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
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

/** Output tokens spent on reasoning, when the server reports them. */
export function reasoningTokensOf(usage: ChatCompletion['usage'] | null | undefined): number | undefined {
  return usage?.completion_tokens_details?.reasoning_tokens ?? undefined;
}

/** Reasoning text some servers send beside the content (vLLM/DeepSeek `reasoning_content`, Ollama/OpenRouter `reasoning`). */
function reasoningText(source: unknown): string {
  if (!isPlainObject(source)) return '';
  const value = source.reasoning_content ?? source.reasoning;
  return typeof value === 'string' ? value : '';
}

/** What a completion's message holds, after `<think>` is taken out of the visible text. */
export interface OpenAIReply {
  content: AssistantMessage['content'];
  refusal?: string;
}

/** Our content from a non-streamed reply: object arguments accepted, missing ids generated, `<think>` split off. */
export function fromOpenAICompletion(
  completion: ChatCompletion,
  flavour: OpenAIFlavour = 'openai',
): OpenAIReply {
  const message = completion.choices[0]?.message;
  const content: AssistantMessage['content'] = [];
  if (!message) return { content };
  const filter = flavour === 'openai-compatible' ? new ThinkTagFilter() : undefined;
  const raw = message.content ?? '';
  const visible = filter ? filter.push(raw) + filter.flush() : raw;
  const thinking = [reasoningText(message), filter?.thinking ?? ''].filter(Boolean).join('\n');
  if (thinking) content.push({ type: 'thinking', text: thinking });
  const text = filter ? visible.trim() : visible;
  if (text) content.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    // Some proxies send `arguments` as a JSON object rather than a string.
    content.push(toolCallFromValue(call.id || newToolCallId(), call.function.name, call.function.arguments));
  }
  return { content, ...(message.refusal ? { refusal: message.refusal } : {}) };
}

interface PartialCall {
  /** The index the server gave (not unique on servers that reuse 0). */
  index: number;
  id: string;
  name: string;
  args: string;
}

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** One streamed tool-call fragment, as loose as servers send it. */
interface CallFragment {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/**
 * Assembles a streamed reply chunk by chunk. Tool calls arrive as fragments keyed by `index`; a fragment
 * with a new id (or a new name after complete arguments) at an index already in use starts a new call,
 * because Ollama streams parallel calls all at index 0. Compatible servers' `<think>` blocks are kept out of
 * the visible text (and out of `onTextDelta`).
 */
export class OpenAIStreamAssembler {
  private text = '';
  private reasoning = '';
  private refusal = '';
  private readonly calls: PartialCall[] = [];
  private readonly filter: ThinkTagFilter | undefined;
  /** Model id the server reported. */
  model = '';
  /** Raw finish reason; null until the last choice chunk: without it the stream died midway. */
  finishReason: string | null = null;
  /** Usage from the final chunk (`stream_options.include_usage`). */
  usage: Usage = fromOpenAIUsage(undefined);
  /** Reasoning tokens from the final chunk, when reported. */
  reasoningTokens: number | undefined;

  constructor(
    private readonly onTextDelta?: (text: string) => void,
    flavour: OpenAIFlavour = 'openai',
  ) {
    this.filter = flavour === 'openai-compatible' ? new ThinkTagFilter() : undefined;
  }

  /** Applies one chunk. */
  apply(chunk: ChatCompletionChunk): void {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) {
      this.usage = fromOpenAIUsage(chunk.usage);
      this.reasoningTokens = reasoningTokensOf(chunk.usage);
    }
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.content) this.addText(delta.content);
    this.reasoning += reasoningText(delta);
    if (delta.refusal) this.refusal += delta.refusal;
    for (const fragment of (delta.tool_calls ?? []) as CallFragment[]) this.addFragment(fragment);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private addText(fragment: string): void {
    let shown = this.filter ? this.filter.push(fragment) : fragment;
    // After a think block comes whitespace before the answer: not worth showing.
    if (this.filter && this.text === '') shown = shown.replace(/^\s+/, '');
    if (shown === '') return;
    this.text += shown;
    this.onTextDelta?.(shown);
  }

  private addFragment(fragment: CallFragment): void {
    const index = fragment.index ?? 0;
    const name = fragment.function?.name ?? '';
    const rawArgs = fragment.function?.arguments;
    const args =
      typeof rawArgs === 'string' ? rawArgs : isPlainObject(rawArgs) ? JSON.stringify(rawArgs) : '';
    let call = this.lastAt(index);
    const startsNew =
      !call ||
      (Boolean(fragment.id) && Boolean(call.id) && fragment.id !== call.id) ||
      (name !== '' && call.name !== '' && isCompleteJson(call.args));
    if (startsNew || !call) {
      call = { index, id: '', name: '', args: '' };
      this.calls.push(call);
    }
    if (fragment.id) call.id = fragment.id;
    // Servers that repeat the name on every fragment must not produce `readread`.
    if (name && call.name !== name) call.name += name;
    call.args += args;
  }

  private lastAt(index: number): PartialCall | undefined {
    for (let i = this.calls.length - 1; i >= 0; i--) if (this.calls[i]?.index === index) return this.calls[i];
    return undefined;
  }

  /** The refusal text, if the model declined. */
  refusalText(): string | undefined {
    return this.refusal || undefined;
  }

  /** The reply content: reasoning, text, then tool calls in arrival order. */
  content(): AssistantMessage['content'] {
    if (this.filter) {
      const rest = this.filter.flush();
      if (rest) this.text += rest;
    }
    const content: AssistantMessage['content'] = [];
    const thinking = [this.reasoning, this.filter?.thinking ?? ''].filter(Boolean).join('\n');
    if (thinking) content.push({ type: 'thinking', text: thinking });
    const text = this.filter ? this.text.trim() : this.text;
    if (text !== '') content.push({ type: 'text', text });
    for (const call of this.calls)
      content.push(toolCallFromRaw(call.id || newToolCallId(), call.name, call.args));
    return content;
  }
}
