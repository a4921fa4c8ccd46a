import type { RecordedRequest, WireFormat } from './types.js';
import {
  AnthropicRequestBody,
  canonicalPrompt,
  firstUserText,
  OpenAIRequestBody,
  parseAnthropicRequest,
  parseOpenAIRequest,
} from './wire.js';

/** The testkit's token estimate: a quarter of the UTF-8 bytes, rounded up. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

const CHUNK = 1024;

/** Length in bytes of the longest common prefix of two buffers. */
export function commonPrefixBytes(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  let at = 0;
  // Compare whole chunks natively first; only the chunk that differs is walked byte by byte.
  while (at + CHUNK <= length && a.subarray(at, at + CHUNK).equals(b.subarray(at, at + CHUNK))) at += CHUNK;
  while (at < length && a[at] === b[at]) at++;
  return at;
}

/** How stable the prompt prefix was between consecutive requests of each conversation. */
export interface PrefixStabilityReport {
  /** Number of (earlier, later) request pairs compared. */
  pairs: number;
  /** Mean share (0–1) of the earlier prompt that is a byte-identical prefix of the later one; null without pairs. */
  mean: number | null;
  /** Smallest share seen; null without pairs. */
  min: number | null;
  /** Every pair: request indexes and the share. */
  shares: Array<{ from: number; to: number; share: number }>;
}

function parsedPrompt(request: RecordedRequest): { key: string; prompt: Buffer } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return undefined;
  }
  const format: WireFormat = request.format;
  const schema = format === 'anthropic' ? AnthropicRequestBody : OpenAIRequestBody;
  const parsed = schema.safeParse(body);
  if (!parsed.success) return undefined;
  const conversation =
    format === 'anthropic'
      ? parseAnthropicRequest(parsed.data as AnthropicRequestBody)
      : parseOpenAIRequest(parsed.data as OpenAIRequestBody);
  const key = JSON.stringify([format, conversation.model, firstUserText(conversation.messages)]);
  return { key, prompt: Buffer.from(canonicalPrompt(format, body as Record<string, unknown>).text) };
}

/**
 * Prefix stability of a request log. Requests belong to one conversation when format, model and first
 * user message agree; each request is compared with the previous one of its conversation. The comparison
 * runs over the canonical prompt serialization (tools, system, messages; see `canonicalPrompt`), not the
 * raw body, because a JSON body closes its arrays and carries fields after the messages, so even a purely
 * appended conversation never has the earlier raw body as a prefix. Unparsable bodies are skipped.
 */
export function prefixStability(requests: readonly RecordedRequest[]): PrefixStabilityReport {
  const previous = new Map<string, { index: number; prompt: Buffer }>();
  const shares: PrefixStabilityReport['shares'] = [];
  for (const request of [...requests].sort((a, b) => a.index - b.index)) {
    const current = parsedPrompt(request);
    if (!current) continue;
    const earlier = previous.get(current.key);
    if (earlier && earlier.prompt.length > 0) {
      const share = commonPrefixBytes(earlier.prompt, current.prompt) / earlier.prompt.length;
      shares.push({ from: earlier.index, to: request.index, share });
    }
    previous.set(current.key, { index: request.index, prompt: current.prompt });
  }
  const values = shares.map((entry) => entry.share);
  return {
    pairs: shares.length,
    mean: values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null,
    min: values.length ? Math.min(...values) : null,
    shares,
  };
}
