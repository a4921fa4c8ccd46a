import { commonPrefixBytes, estimateTokens } from './prefix.js';
import { type OutgoingReply, outputTokens, type SimulatedUsage } from './reply.js';
import type { WireFormat } from './types.js';
import { canonicalPrompt } from './wire.js';

/**
 * The simulated prompt cache: the canonical prompts of recent requests per model. A new request
 * "hits" the longest byte-identical prefix it shares with any of them. Bounded, so a long benchmark
 * does not grow without limit (a real cache forgets too).
 */
export class PromptCache {
  private readonly entries = new Map<string, Buffer[]>();

  constructor(private readonly perModel = 64) {}

  /** Bytes of `prompt` that a remembered prompt of the same model already covers. */
  sharedPrefix(model: string, prompt: Buffer): number {
    let best = 0;
    for (const earlier of this.entries.get(model) ?? []) {
      if (earlier[0] !== prompt[0]) continue;
      best = Math.max(best, commonPrefixBytes(earlier, prompt));
      if (best === prompt.length) break;
    }
    return best;
  }

  /** Remembers the first `bytes` bytes of a prompt (what was written to the cache). */
  remember(model: string, prompt: Buffer, bytes: number = prompt.length): void {
    if (bytes <= 0) return;
    const list = this.entries.get(model) ?? [];
    list.push(prompt.subarray(0, bytes));
    if (list.length > this.perModel) list.shift();
    this.entries.set(model, list);
  }
}

/**
 * The usage a request reports, with token counts estimated as a quarter of the bytes of its canonical
 * prompt. Anthropic caches only on request: with `cache_control` markers, the prefix shared with an
 * earlier request (up to the last marker) is read from the cache, the rest up to the last marker is
 * written to it, and what follows the last marker is plain input. OpenAI caches automatically: the
 * shared prefix is reported as cached tokens.
 */
export function simulateUsage(
  cache: PromptCache,
  format: WireFormat,
  body: Record<string, unknown>,
  model: string,
  reply: OutgoingReply,
): SimulatedUsage {
  const prompt = canonicalPrompt(format, body);
  const bytes = Buffer.from(prompt.text);
  const total = estimateTokens(bytes.length);
  const output = outputTokens(reply);
  if (format === 'openai') {
    const cacheRead = Math.min(total, estimateTokens(cache.sharedPrefix(model, bytes)));
    cache.remember(model, bytes);
    return { input: total - cacheRead, cacheRead, cacheWrite: 0, output };
  }
  if (prompt.lastMarkerEnd === 0) return { input: total, cacheRead: 0, cacheWrite: 0, output };
  const shared = Math.min(cache.sharedPrefix(model, bytes), prompt.lastMarkerEnd);
  cache.remember(model, bytes, prompt.lastMarkerEnd);
  const cacheRead = estimateTokens(shared);
  const cached = estimateTokens(prompt.lastMarkerEnd);
  return { input: total - cached, cacheRead, cacheWrite: cached - cacheRead, output };
}
