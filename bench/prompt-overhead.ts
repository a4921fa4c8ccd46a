/**
 * Fixed prompt overhead of each role, as sent: the system prompt and the tool schemas of the role's requests
 * in the scripted server's log (Anthropic wire format), in bytes and tokens (gpt-tokenizer, o200k_base).
 */
import { encode } from 'gpt-tokenizer';
import { z } from 'zod';
import { roleOf } from '../testkit/policies/demo.js';
import type { RecordedRequest } from '../testkit/types.js';
import { Spread, spread } from './stats.js';

/** One role's fixed overhead per request, and the first message (the variable part) for scale. */
export const RoleOverhead = z.object({
  role: z.string(),
  requests: z.number().int(),
  systemBytes: z.number().int(),
  systemTokens: z.number().int(),
  tools: z.array(z.string()),
  toolSchemaBytes: z.number().int(),
  toolSchemaTokens: z.number().int(),
  totalTokens: z.number().int(),
  /** True when every request of the role sent the same system prompt and tools (the overhead is fixed). */
  identicalAcrossRequests: z.boolean(),
  /** Tokens of the harness-assembled first user message, over the role's sessions. */
  firstMessageTokens: Spread,
});
export type RoleOverhead = z.infer<typeof RoleOverhead>;

const Body = z.object({
  system: z.union([z.string(), z.array(z.object({ text: z.string() }))]).optional(),
  tools: z.array(z.object({ name: z.string() }).loose()).optional(),
  messages: z.array(z.object({ role: z.string(), content: z.unknown() })),
});

function firstUserText(body: z.infer<typeof Body>): string {
  const first = body.messages[0];
  if (!first) return '';
  if (typeof first.content === 'string') return first.content;
  return (first.content as Array<{ type?: string; text?: string }>)
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** Overhead per role from a request log (roles told apart by their prompts, as the demo policy does). */
export function promptOverhead(requests: readonly RecordedRequest[]): RoleOverhead[] {
  const byRole = new Map<string, Array<z.infer<typeof Body>>>();
  for (const request of requests) {
    const parsed = Body.safeParse(JSON.parse(request.body));
    if (!parsed.success) continue;
    const body = parsed.data;
    const system =
      typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');
    const role = roleOf({ system, toolNames: (body.tools ?? []).map((tool) => tool.name) });
    if (!role) continue;
    byRole.set(role, [...(byRole.get(role) ?? []), body]);
  }
  return [...byRole].map(([role, bodies]) => {
    const first = bodies[0] as z.infer<typeof Body>;
    const systemText =
      typeof first.system === 'string' ? first.system : (first.system ?? []).map((b) => b.text).join('\n');
    const toolsJson = JSON.stringify(first.tools ?? []);
    const fixed = (body: z.infer<typeof Body>) => JSON.stringify([body.system, body.tools]);
    const firstMessages = new Set(
      bodies.filter((body) => body.messages.length === 1).map((body) => firstUserText(body)),
    );
    const systemTokens = encode(systemText).length;
    const toolSchemaTokens = encode(toolsJson).length;
    return {
      role,
      requests: bodies.length,
      systemBytes: Buffer.byteLength(systemText),
      systemTokens,
      tools: (first.tools ?? []).map((tool) => tool.name),
      toolSchemaBytes: Buffer.byteLength(toolsJson),
      toolSchemaTokens,
      totalTokens: systemTokens + toolSchemaTokens,
      identicalAcrossRequests: bodies.every((body) => fixed(body) === fixed(first)),
      firstMessageTokens: spread(
        [...firstMessages].map((text) => encode(text).length),
        0,
      ),
    };
  });
}
