// Runs a scripted evaluator's code (anything written against ScriptIO, such as the meal-planner check interpreter)
// straight against real browser tools, without a model server: ScriptIO is synchronous and replays recorded
// results, so the script is run again from the start after each batch of calls is executed, exactly as runScript
// does over a conversation.
import type { Tool, ToolContext } from '../../../agent/tool.js';
import { runToolCall } from '../../../agent/tool-runner.js';
import type { CallResult, ScriptIO } from '../../../testkit/policies/script.js';
import type { ScriptedToolCall } from '../../../testkit/types.js';

class PendingCalls {
  constructor(readonly calls: readonly ScriptedToolCall[]) {}
}

/** Runs `script` to its end, executing each new batch of tool calls with `tools`; returns what it returns. */
export async function runScriptDirectly<T>(
  tools: readonly Tool[],
  context: ToolContext,
  tag: string,
  script: (io: ScriptIO) => T,
): Promise<T> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const recorded: CallResult[][] = [];
  for (;;) {
    let cursor = 0;
    const io: ScriptIO = {
      system: '',
      firstMessage: '',
      toolNames: tools.map((tool) => tool.name),
      tag,
      act(calls) {
        const results = recorded[cursor++];
        if (results) return results;
        throw new PendingCalls(calls);
      },
      call(name, args) {
        return io.act([{ name, arguments: args }])[0] as CallResult;
      },
      finish() {
        return '';
      },
    };
    try {
      return script(io);
    } catch (error) {
      if (!(error instanceof PendingCalls)) throw error;
      const results: CallResult[] = [];
      for (const [index, call] of error.calls.entries()) {
        const args =
          typeof call.arguments === 'string'
            ? (JSON.parse(call.arguments) as Record<string, unknown>)
            : call.arguments;
        const id = `direct-${recorded.length}-${index}`;
        const run = await runToolCall(
          { type: 'tool_call', id, name: call.name, arguments: args },
          byName,
          context,
        );
        results.push({
          name: call.name,
          arguments: args,
          content: run.output.content,
          isError: run.output.isError ?? false,
        });
      }
      recorded.push(results);
    }
  }
}
