import { emit, estimateTokens, type Session, state } from './loop-session.js';
import type { ToolResultBlock } from './messages.js';

/** Default share of the window after which old results of elidable tools are elided. */
export const DEFAULT_ELIDE_AT = 0.5;
/** Default number of the newest elidable results kept whole. */
export const DEFAULT_KEEP_LAST = 2;

/** What an elided result says instead of its content. */
function elidedNote(tool: string, bytes: number): string {
  return `[elided by the harness to keep the context small: an older ${tool} result of ${bytes} bytes. Call ${tool} again if you need the current state.]`;
}

/**
 * Elides old results of the elidable tools once the context passes `elideAt` of the window: every such
 * result but the newest `keepLast` gets a one-line note instead of its content (and loses its images).
 * All at once, so the conversation's prefix changes at one point and is stable again after it.
 */
export function elideOldResults(session: Session): void {
  const budget = session.options.contextBudget;
  const tools = new Set(budget?.elidableTools ?? []);
  if (tools.size === 0) return;
  const before = state(session).context;
  if (before.share < (budget?.elideAt ?? DEFAULT_ELIDE_AT)) return;
  const candidates: Array<{ block: ToolResultBlock; counted: boolean }> = [];
  session.messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      if (tools.has(session.callNames.get(block.toolCallId) ?? ''))
        candidates.push({ block, counted: index < session.reportedCount });
    }
  });
  const keep = budget?.keepLast ?? DEFAULT_KEEP_LAST;
  const old = candidates
    .slice(0, Math.max(0, candidates.length - keep))
    .filter(({ block }) => !isElided(block));
  if (old.length === 0) return;
  let bytes = 0;
  let freed = 0;
  for (const { block, counted } of old) {
    const size = Buffer.byteLength(block.content);
    bytes += size;
    const note = elidedNote(session.callNames.get(block.toolCallId) ?? 'tool', size);
    // The provider's count covered results sent before: take the estimate of what was cut off it.
    if (counted)
      freed += estimateTokens(block.content) - estimateTokens(note) + (block.images?.length ?? 0) * 1_500;
    block.content = note;
    delete block.images;
  }
  session.reportedTokens = Math.max(0, session.reportedTokens - freed);
  emit(session, {
    type: 'context.elided',
    step: session.steps,
    results: old.length,
    bytes,
    usedTokens: before.usedTokens,
    windowTokens: before.windowTokens,
  });
}

function isElided(block: ToolResultBlock): boolean {
  return block.content.startsWith('[elided by the harness');
}
