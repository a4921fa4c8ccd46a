import { z } from 'zod';
import type { AgentEvent } from '../../../agent/events.js';
import type { RunAgentOptions } from '../../../agent/loop.js';
import type { ModelProvider } from '../../../agent/messages.js';
import { resolveModelSettings } from '../../../agent/models.js';
import { defineTool, type Tool } from '../../../agent/tool.js';

/** A tool that records its calls and answers with `output` (a function of the arguments). */
export function recordingTool(
  name: string,
  output: (args: Record<string, unknown>) => string | { content: string; images?: [] } = () => 'ok',
) {
  const calls: Array<Record<string, unknown>> = [];
  const tool: Tool = defineTool({
    name,
    description: `the ${name} tool`,
    parameters: z.record(z.string(), z.unknown()),
    async execute(args) {
      calls.push(args);
      return output(args);
    },
  });
  return { tool, calls };
}

/** Options of a loop session over `provider`, collecting events. */
export function loopOptions(
  provider: ModelProvider,
  tools: Tool[],
  extra: Partial<RunAgentOptions> = {},
): RunAgentOptions & { events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  return {
    sessionId: 'unit',
    provider,
    system: 'You are a careful engineer.',
    firstMessage: 'Build the thing.',
    tools,
    toolContext: { workspace: '/nonexistent', protectedPaths: [] },
    limits: { maxSteps: 20, maxWallMs: 60_000 },
    sink: (event) => events.push(event),
    sleep: async () => undefined,
    events,
    ...extra,
  };
}

/** Settings of a made-up model with the given window and output limit. */
export function settingsWith(contextWindow: number, maxOutputTokens: number, vision = true) {
  return {
    ...resolveModelSettings('openai-compatible:unit'),
    contextWindow,
    maxOutputTokens,
    vision,
  };
}

/** Events of one type. */
export function eventsOf<T extends AgentEvent['type']>(events: AgentEvent[], type: T) {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}
