import { z } from 'zod';
import type {
  AssistantMessage,
  ImageAttachment,
  Message,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
  UserMessage,
} from '../agent/messages.js';
import type { ScriptedConversation, WireFormat } from './types.js';

/** An Anthropic Messages request body, as far as the testkit reads it. */
export const AnthropicRequestBody = z.looseObject({
  model: z.string(),
  max_tokens: z.number().optional(),
  stream: z.boolean().optional(),
  system: z
    .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
    .optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  messages: z.array(
    z.looseObject({
      role: z.enum(['user', 'assistant']),
      content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    }),
  ),
});
export type AnthropicRequestBody = z.infer<typeof AnthropicRequestBody>;

/** An OpenAI Chat Completions request body, as far as the testkit reads it. */
export const OpenAIRequestBody = z.looseObject({
  model: z.string(),
  stream: z.boolean().optional().nullable(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).optional().nullable(),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string() }) }))
    .optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
});
export type OpenAIRequestBody = z.infer<typeof OpenAIRequestBody>;

/** A conversation before the server gives it a request index. */
export type ParsedConversation = Omit<ScriptedConversation, 'requestIndex'>;

type Loose = Record<string, unknown>;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part: Loose) => part?.type === 'text')
    .map((part: Loose) => str(part.text))
    .join('');
}

function parseArguments(raw: string): Pick<ToolCallBlock, 'arguments' | 'invalidArguments'> {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { arguments: value as Loose };
  } catch {
    // reported below
  }
  return { arguments: {}, invalidArguments: raw };
}

function anthropicImage(part: Loose): ImageAttachment | undefined {
  const source = part.source as Loose | undefined;
  if (part.type !== 'image' || source?.type !== 'base64') return undefined;
  const mediaType = source.media_type === 'image/jpeg' ? 'image/jpeg' : 'image/png';
  return { mediaType, base64: str(source.data) };
}

function anthropicToolResult(block: Loose): ToolResultBlock {
  const result: ToolResultBlock = {
    type: 'tool_result',
    toolCallId: str(block.tool_use_id),
    content: textOf(block.content),
    isError: block.is_error === true,
  };
  if (Array.isArray(block.content)) {
    const images = block.content.map(anthropicImage).filter((image): image is ImageAttachment => !!image);
    if (images.length > 0) result.images = images;
  }
  return result;
}

function anthropicMessage(message: AnthropicRequestBody['messages'][number]): Message {
  const blocks: Loose[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (message.role === 'assistant') {
    const content: AssistantMessage['content'] = [];
    for (const block of blocks) {
      if (block.type === 'text') content.push({ type: 'text', text: str(block.text) });
      if (block.type === 'tool_use') {
        const input = block.input;
        const args =
          input && typeof input === 'object' && !Array.isArray(input)
            ? { arguments: input as Loose }
            : parseArguments(str(input));
        content.push({ type: 'tool_call', id: str(block.id), name: str(block.name), ...args });
      }
    }
    return { role: 'assistant', content };
  }
  const content: UserMessage['content'] = [];
  for (const block of blocks) {
    if (block.type === 'text') content.push({ type: 'text', text: str(block.text) });
    if (block.type === 'tool_result') content.push(anthropicToolResult(block));
  }
  return { role: 'user', content };
}

/** The neutral conversation in an Anthropic Messages request body. */
export function parseAnthropicRequest(body: AnthropicRequestBody): ParsedConversation {
  return {
    format: 'anthropic',
    model: body.model,
    system: textOf(body.system ?? ''),
    messages: body.messages.map(anthropicMessage),
    toolNames: (body.tools ?? []).map((tool) => tool.name),
  };
}

const IMAGES_FROM_PATTERN = /^Images from tool call (.+):$/;

function dataUrlImage(url: string): ImageAttachment | undefined {
  const match = /^data:(image\/(?:png|jpeg));base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1] as ImageAttachment['mediaType'], base64: match[2] ?? '' };
}

/** Adds a user message's parts to the current turn; images go to the tool result they name (or the last one). */
function addUserParts(turn: UserMessage, content: unknown): void {
  if (typeof content === 'string') {
    turn.content.push({ type: 'text', text: content });
    return;
  }
  if (!Array.isArray(content)) return;
  const results = turn.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
  let target = results.at(-1);
  for (const part of content as Loose[]) {
    if (part.type === 'text') {
      const named = IMAGES_FROM_PATTERN.exec(str(part.text));
      const match = named && results.find((result) => result.toolCallId === named[1]);
      if (match) target = match;
      else turn.content.push({ type: 'text', text: str(part.text) });
    }
    if (part.type === 'image_url') {
      const image = dataUrlImage(str((part.image_url as Loose | undefined)?.url));
      if (image && target) target.images = [...(target.images ?? []), image];
    }
  }
}

function openAIAssistant(message: Loose): AssistantMessage {
  const content: AssistantMessage['content'] = [];
  const text = textOf(message.content);
  if (text !== '') content.push({ type: 'text', text });
  for (const call of (message.tool_calls as Loose[] | undefined) ?? []) {
    const fn = (call.function as Loose | undefined) ?? {};
    content.push({
      type: 'tool_call',
      id: str(call.id),
      name: str(fn.name),
      ...parseArguments(str(fn.arguments)),
    });
  }
  return { role: 'assistant', content };
}

/**
 * The neutral conversation in a Chat Completions request body. Consecutive `tool` messages and the user
 * message after them become one user turn, as they came from one turn of ours.
 */
export function parseOpenAIRequest(body: OpenAIRequestBody): ParsedConversation {
  const systemParts: string[] = [];
  const messages: Message[] = [];
  let turn: UserMessage | undefined;
  for (const message of body.messages as Loose[]) {
    const role = str(message.role);
    if (role === 'system' || role === 'developer') {
      systemParts.push(textOf(message.content));
      continue;
    }
    if (role === 'assistant') {
      turn = undefined;
      messages.push(openAIAssistant(message));
      continue;
    }
    if (!turn) {
      turn = { role: 'user', content: [] };
      messages.push(turn);
    }
    if (role === 'tool') {
      const result: ToolResultBlock = {
        type: 'tool_result',
        toolCallId: str(message.tool_call_id),
        content: textOf(message.content),
        isError: false,
      };
      turn.content.push(result);
    } else {
      addUserParts(turn, message.content);
      // A plain user message closes the turn unless it follows tool results (then it carries their images).
      if (!turn.content.some((b) => b.type === 'tool_result')) turn = undefined;
    }
  }
  return {
    format: 'openai',
    model: body.model,
    system: systemParts.join('\n'),
    messages,
    toolNames: (body.tools ?? []).map((tool) => tool.function.name),
  };
}

/** The text of the first user message of a conversation (its identity for prefix comparisons). */
export function firstUserText(messages: Message[]): string {
  const first = messages.find((message) => message.role === 'user');
  if (!first) return '';
  return first.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** The canonical serialization of a request's prompt (see {@link canonicalPrompt}). */
export interface CanonicalPrompt {
  /** The serialized prompt. */
  text: string;
  /** Byte offset just after the last block that carried `cache_control` (0 when none did). */
  lastMarkerEnd: number;
}

function withoutCacheControl(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const { cache_control: _dropped, ...rest } = value as Loose;
  return rest;
}

/**
 * The prompt of a request body as a sequence of segments, one JSON document and a newline each:
 * Anthropic — every tool, then every system block, then per message a `{"role":…}` header and each
 * content block; OpenAI — every tool, then every message. `cache_control` keys are left out (the cache
 * key ignores them, and they move to the newest block each turn). Fields after the messages (`stream`,
 * `max_tokens`, …) are not part of the prompt, so a request whose conversation only grew has the
 * previous request's serialization as a byte-identical prefix.
 */
export function canonicalPrompt(format: WireFormat, body: Loose): CanonicalPrompt {
  const segments: Array<{ json: string; marked: boolean }> = [];
  const add = (value: unknown) => {
    const marked =
      !!value && typeof value === 'object' && 'cache_control' in value && !!(value as Loose).cache_control;
    segments.push({ json: `${JSON.stringify(withoutCacheControl(value)) ?? 'null'}\n`, marked });
  };
  for (const tool of (body.tools as unknown[] | undefined) ?? []) add(tool);
  if (format === 'anthropic') {
    const system = body.system;
    if (typeof system === 'string') add(system);
    else for (const block of (system as unknown[] | undefined) ?? []) add(block);
    for (const message of (body.messages as Loose[] | undefined) ?? []) {
      add({ role: message.role });
      const content = message.content;
      if (Array.isArray(content)) for (const block of content) add(block);
      else add(content);
    }
  } else {
    for (const message of (body.messages as unknown[] | undefined) ?? []) add(message);
  }
  let offset = 0;
  let lastMarkerEnd = 0;
  for (const segment of segments) {
    offset += Buffer.byteLength(segment.json);
    if (segment.marked) lastMarkerEnd = offset;
  }
  return { text: segments.map((segment) => segment.json).join(''), lastMarkerEnd };
}
