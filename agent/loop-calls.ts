import { emit, type Session, state } from './loop-session.js';
import type { ToolCallBlock, ToolResultBlock } from './messages.js';
import { runToolCall, toResultBlock } from './tool-runner.js';

/** Runs the calls of one reply in order; a denied or failed call still gets a result block. */
export async function runCalls(session: Session, calls: ToolCallBlock[]): Promise<ToolResultBlock[]> {
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    if (session.controller.signal.aborted) {
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
  emit(session, { type: 'tool.started', step, callId: call.id, name: call.name, arguments: call.arguments });
  const denial = await denialFor(session, call);
  if (denial) {
    emit(session, { type: 'tool.denied', step, callId: call.id, name: call.name, reason: denial });
    return { type: 'tool_result', toolCallId: call.id, content: `Refused: ${denial}`, isError: true };
  }
  const startedAt = session.now();
  const run = await runToolCall(
    call,
    session.tools,
    session.toolContext,
    session.options.toolOutputLimitBytes,
  );
  session.detector.noteResult(run.output);
  await session.options.hooks?.afterToolCall?.(call, run.output, state(session));
  emit(session, {
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
    emit(session, {
      type: 'loop.detected',
      step: session.steps,
      kind: verdict.detectedKind,
      detail: verdict.detail,
    });
    if (verdict.kind === 'deny') return verdict.detail;
  }
  const decision = await session.options.hooks?.beforeToolCall?.(call, state(session));
  return decision && !decision.allow ? decision.reason : undefined;
}
