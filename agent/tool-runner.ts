import { inSpan } from '../core/trace.js';
import { truncateMiddle } from '../core/truncate.js';
import { formatZodIssues } from '../core/zod-issues.js';
import type { ToolCallBlock, ToolResultBlock } from './messages.js';
import type { Session } from './session.js';
import { type Tool, type ToolContext, ToolError, type ToolOutput } from './tool.js';

/** Bytes of tool output sent to the model when a tool does not cut its own output. */
export const DEFAULT_TOOL_OUTPUT_LIMIT = 30_000;

/** The outcome of running one call, before it becomes a `tool_result` block. */
export interface ToolRun {
  output: ToolOutput;
  truncated: boolean;
}

/** Error text for a call whose arguments were not a JSON object. */
function invalidJsonMessage(call: ToolCallBlock): string {
  const raw = (call.invalidArguments ?? '').slice(0, 200);
  return `The arguments of ${call.name} were not valid JSON (${JSON.stringify(raw)}). Call it again with a JSON object.`;
}

/** Runs the calls of one reply in order; a denied or failed call still gets a result block. */
export async function runCalls(session: Session, calls: ToolCallBlock[]): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    if (session.signal.aborted) {
      results.push({
        type: 'tool_result',
        toolCallId: call.id,
        content: 'Not run: the session is ending.',
        isError: true,
      });
      continue;
    }
    results.push(await runOneCall(session, call));
  }
  return results;
}

async function runOneCall(session: Session, call: ToolCallBlock): Promise<ToolResultBlock> {
  const step = session.steps;
  session.emit({ type: 'tool.started', step, callId: call.id, name: call.name, arguments: call.arguments });
  const denial = await denialFor(session, call);
  if (denial) {
    session.emit({ type: 'tool.denied', step, callId: call.id, name: call.name, reason: denial });
    return { type: 'tool_result', toolCallId: call.id, content: `Refused: ${denial}`, isError: true };
  }
  const startedAt = session.now();
  // The span names the tool only: its arguments and output may hold anything the workspace holds.
  const run = await inSpan(`tool ${call.name}`, { 'nightshift.tool.name': call.name }, async (span) => {
    const ran = await runToolCall(
      call,
      session.tools,
      session.toolContext,
      session.options.toolOutputLimitBytes,
    );
    span.set({ 'nightshift.tool.output_bytes': Buffer.byteLength(ran.output.content) });
    if (ran.output.isError) span.fail('tool_error');
    return ran;
  });
  session.detector.noteResult(run.output);
  await session.options.hooks?.afterToolCall?.(call, run.output, session.state());
  session.emit({
    type: 'tool.ended',
    step,
    callId: call.id,
    name: call.name,
    isError: run.output.isError === true,
    durationMs: session.now() - startedAt,
    outputBytes: Buffer.byteLength(run.output.content),
    truncated: run.truncated,
  });
  return toResultBlock(call, run);
}

/** Loop detection first (cheap, harness-wide), then the caller's policy. */
async function denialFor(session: Session, call: ToolCallBlock): Promise<string | undefined> {
  const verdict = session.detector.observe(call);
  if (verdict.kind !== 'ok') {
    session.emit({
      type: 'loop.detected',
      step: session.steps,
      kind: verdict.detectedKind,
      detail: verdict.detail,
    });
    if (verdict.kind === 'deny') return verdict.detail;
  }
  const decision = await session.options.hooks?.beforeToolCall?.(call, session.state());
  return decision && !decision.allow ? decision.reason : undefined;
}

/**
 * Validates and runs one tool call. Never throws: unknown tools, invalid arguments and thrown errors
 * all become error results the model can act on.
 */
export async function runToolCall(
  call: ToolCallBlock,
  tools: ReadonlyMap<string, Tool>,
  context: ToolContext,
  outputLimitBytes = DEFAULT_TOOL_OUTPUT_LIMIT,
): Promise<ToolRun> {
  if (call.invalidArguments !== undefined) return failed(invalidJsonMessage(call));
  const tool = tools.get(call.name);
  if (!tool) {
    const known = [...tools.keys()].join(', ');
    return failed(`Unknown tool "${call.name}". Available tools: ${known}.`);
  }
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success) {
    return failed(`Invalid arguments for ${call.name}:\n${formatZodIssues(parsed.error.issues)}`);
  }
  try {
    const result = await tool.execute(parsed.data, context);
    const output: ToolOutput = typeof result === 'string' ? { content: result } : result;
    const cut = truncateMiddle(output.content, outputLimitBytes);
    return { output: { ...output, content: cut.text }, truncated: cut.truncated };
  } catch (error) {
    const message =
      error instanceof ToolError ? error.message : `${call.name} failed: ${describeError(error)}`;
    return failed(message);
  }
}

function failed(content: string): ToolRun {
  return { output: { content, isError: true }, truncated: false };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns a run into the block the model sees. */
export function toResultBlock(call: ToolCallBlock, run: ToolRun): ToolResultBlock {
  const block: ToolResultBlock = {
    type: 'tool_result',
    toolCallId: call.id,
    content: run.output.content,
    isError: run.output.isError === true,
  };
  if (run.output.images?.length) block.images = run.output.images;
  return block;
}
