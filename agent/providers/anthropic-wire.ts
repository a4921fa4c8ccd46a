import type {
  Message as AnthropicMessage,
  Tool as AnthropicTool,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  AssistantMessage,
  Message,
  ModelRequest,
  StopReason,
  TextBlock,
  ToolResultBlock,
  Usage,
} from '../messages.js';
import type { ReasoningSettings } from '../models.js';
import { IMAGE_OMITTED_NOTE, toolCallFromRaw, toolCallFromValue } from './shared.js';

/** Marks a cache breakpoint: Anthropic caches the prompt up to and including the marked block. */
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Stands in for an empty turn, which the API rejects. */
const EMPTY_TURN_TEXT = '(empty)';

type Block = ContentBlockParam;

function toolResultBlock(block: ToolResultBlock, vision: boolean): ToolResultBlockParam {
  const images = block.images ?? [];
  if (images.length > 0 && !vision) {
    return {
      type: 'tool_result',
      tool_use_id: block.toolCallId,
      content: block.content === '' ? IMAGE_OMITTED_NOTE : `${block.content}\n${IMAGE_OMITTED_NOTE}`,
      is_error: block.isError,
    };
  }
  if (images.length === 0) {
    return {
      type: 'tool_result',
      tool_use_id: block.toolCallId,
      content: block.content,
      is_error: block.isError,
    };
  }
  const parts: ToolResultBlockParam['content'] = [];
  if (block.content !== '') parts.push({ type: 'text', text: block.content });
  for (const image of images) {
    parts.push({
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType, data: image.base64 },
    });
  }
  return { type: 'tool_result', tool_use_id: block.toolCallId, content: parts, is_error: block.isError };
}

function userBlocks(content: Array<TextBlock | ToolResultBlock>, vision: boolean): Block[] {
  // The API wants tool results before any text in a user turn; a stable order keeps the prefix cacheable.
  const results = content
    .filter((b): b is ToolResultBlock => b.type === 'tool_result')
    .map((block) => toolResultBlock(block, vision));
  const texts = content
    .filter((b): b is TextBlock => b.type === 'text' && b.text !== '')
    .map((b): TextBlockParam => ({ type: 'text', text: b.text }));
  return [...results, ...texts];
}

function assistantBlocks(content: AssistantMessage['content']): Block[] {
  const blocks: Block[] = [];
  for (const block of content) {
    if (block.type === 'thinking') {
      // Signed thinking goes back unchanged (the API checks it); reasoning from elsewhere stays in the record.
      if (block.redactedData !== undefined)
        blocks.push({ type: 'redacted_thinking', data: block.redactedData });
      else if (block.signature)
        blocks.push({ type: 'thinking', thinking: block.text, signature: block.signature });
    } else if (block.type === 'text') {
      if (block.text !== '') blocks.push({ type: 'text', text: block.text });
    } else {
      // Arguments that failed to parse go back as `{}`; the tool result tells the model what was wrong.
      blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: block.arguments });
    }
  }
  return blocks;
}

/** Our messages in the Messages API shape, with a cache breakpoint on the last block of the last message. */
export function toAnthropicMessages(messages: Message[], vision = true): MessageParam[] {
  const out: MessageParam[] = messages.map((message) => {
    const blocks =
      message.role === 'user' ? userBlocks(message.content, vision) : assistantBlocks(message.content);
    if (blocks.length === 0) blocks.push({ type: 'text', text: EMPTY_TURN_TEXT });
    return { role: message.role, content: blocks };
  });
  const last = out.at(-1);
  if (last && Array.isArray(last.content)) {
    const lastBlock = last.content.at(-1);
    if (lastBlock && lastBlock.type !== 'thinking' && lastBlock.type !== 'redacted_thinking') {
      (lastBlock as { cache_control?: unknown }).cache_control = EPHEMERAL;
    }
  }
  return out;
}

/**
 * The request body (without `stream`): cache breakpoints on the last tool, the system prompt and the last
 * message; extended thinking when the model's settings give it a budget (which must stay below max_tokens,
 * so a reply squeezed by a nearly full window goes without).
 */
export function toAnthropicParams(
  model: string,
  request: ModelRequest,
  reasoning?: ReasoningSettings,
): MessageCreateParamsBase {
  const tools: AnthropicTool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as AnthropicTool['input_schema'],
  }));
  const lastTool = tools.at(-1);
  if (lastTool) lastTool.cache_control = EPHEMERAL;
  const params: MessageCreateParamsBase = {
    model,
    max_tokens: request.maxTokens,
    messages: toAnthropicMessages(request.messages, request.vision ?? true),
  };
  const budget = reasoning?.budgetTokens;
  if (budget !== undefined && budget < request.maxTokens) {
    params.thinking = { type: 'enabled', budget_tokens: budget };
  }
  if (request.system !== '')
    params.system = [{ type: 'text', text: request.system, cache_control: EPHEMERAL }];
  if (tools.length > 0) params.tools = tools;
  return params;
}

/** Our stop reason for the API's. */
export function mapAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end_turn';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'pause_turn':
      return 'pause_turn';
    default:
      return 'other';
  }
}

/** The API's usage fields, any of which may be missing or null. */
interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Folds reported usage into ours; `input_tokens` is already the uncached part. Missing fields keep `base`. */
export function mergeAnthropicUsage(base: Usage, wire: WireUsage | null | undefined): Usage {
  if (!wire) return base;
  return {
    inputTokens: wire.input_tokens ?? base.inputTokens,
    outputTokens: wire.output_tokens ?? base.outputTokens,
    cacheReadTokens: wire.cache_read_input_tokens ?? base.cacheReadTokens,
    cacheWriteTokens: wire.cache_creation_input_tokens ?? base.cacheWriteTokens,
  };
}

/** Our content from a non-streamed reply. */
export function fromAnthropicMessage(message: AnthropicMessage): AssistantMessage['content'] {
  const content: AssistantMessage['content'] = [];
  for (const block of message.content) {
    if (block.type === 'text' && block.text !== '') content.push({ type: 'text', text: block.text });
    if (block.type === 'tool_use') content.push(toolCallFromValue(block.id, block.name, block.input));
    if (block.type === 'thinking')
      content.push({ type: 'thinking', text: block.thinking, signature: block.signature });
    if (block.type === 'redacted_thinking')
      content.push({ type: 'thinking', text: '', redactedData: block.data });
  }
  return content;
}

type PartialBlock =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; json: string }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted'; data: string };

/** Assembles a streamed reply event by event. */
export class AnthropicStreamAssembler {
  private readonly blocks = new Map<number, PartialBlock>();
  /** Model id from `message_start`. */
  model = '';
  /** Usage so far (message_start, then message_delta). */
  usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** Raw stop reason from `message_delta`. */
  stopReason: string | null = null;
  /** True once `message_stop` arrived: anything less is a stream that died midway. */
  finished = false;

  constructor(private readonly onTextDelta?: (text: string) => void) {}

  /** Applies one event. */
  apply(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.model = event.message.model;
        this.usage = mergeAnthropicUsage(this.usage, event.message.usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') this.blocks.set(event.index, { kind: 'text', text: block.text });
        if (block.type === 'tool_use')
          this.blocks.set(event.index, { kind: 'tool', id: block.id, name: block.name, json: '' });
        if (block.type === 'thinking')
          this.blocks.set(event.index, {
            kind: 'thinking',
            text: block.thinking,
            signature: block.signature,
          });
        if (block.type === 'redacted_thinking')
          this.blocks.set(event.index, { kind: 'redacted', data: block.data });
        break;
      }
      case 'content_block_delta':
        this.applyDelta(event.index, event.delta);
        break;
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.usage = mergeAnthropicUsage(this.usage, event.usage);
        break;
      case 'message_stop':
        this.finished = true;
        break;
      default:
        break;
    }
  }

  private applyDelta(
    index: number,
    delta: { type: string; text?: string; partial_json?: string; thinking?: string; signature?: string },
  ): void {
    const block = this.blocks.get(index);
    if (!block) return;
    if (block.kind === 'thinking') {
      if (delta.type === 'thinking_delta' && delta.thinking) block.text += delta.thinking;
      if (delta.type === 'signature_delta' && delta.signature) block.signature += delta.signature;
      return;
    }
    if (delta.type === 'text_delta' && block.kind === 'text' && delta.text) {
      block.text += delta.text;
      this.onTextDelta?.(delta.text);
    }
    if (delta.type === 'input_json_delta' && block.kind === 'tool' && delta.partial_json) {
      block.json += delta.partial_json;
    }
  }

  /** The reply content in block order. */
  content(): AssistantMessage['content'] {
    const ordered = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const content: AssistantMessage['content'] = [];
    for (const block of ordered) {
      if (block.kind === 'text' && block.text !== '') content.push({ type: 'text', text: block.text });
      if (block.kind === 'tool') content.push(toolCallFromRaw(block.id, block.name, block.json));
      if (block.kind === 'thinking')
        content.push({ type: 'thinking', text: block.text, signature: block.signature });
      if (block.kind === 'redacted') content.push({ type: 'thinking', text: '', redactedData: block.data });
    }
    return content;
  }
}
