import { moduleLogger } from '../core/log.js';
import { outgoingNeedles, redactNeedles } from '../core/secrets.js';
import { costAtPrice, priceForProvider } from './cost.js';
import type { AgentEvent } from './events.js';
import { LoopDetector } from './loop-detection.js';
import type { LoopState, RunAgentOptions } from './loop-types.js';
import {
  addUsage,
  emptyUsage,
  type Message,
  type ModelResponse,
  type TextBlock,
  type ToolResultBlock,
  type Usage,
} from './messages.js';
import type { ModelPrice } from './models.js';
import { type Tool, type ToolContext, toolSchema } from './tool.js';

const log = moduleLogger('agent/loop');

/** Placeholder for an empty model reply: the APIs refuse empty assistant turns, and the record must say what happened. */
export const EMPTY_REPLY_TEXT = '[empty reply]';

/** Prefix of every text the harness (not the user, not a tool) puts into the conversation. */
export const HARNESS_PREFIX = '[harness]';

/** Context window assumed for a provider without settings (tests' custom providers). */
const DEFAULT_WINDOW_TOKENS = 200_000;
/** Output limit per reply for a provider without settings. */
const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/** Default share of the window after which old results of elidable tools are elided. */
export const DEFAULT_ELIDE_AT = 0.5;
/** Default number of the newest elidable results kept whole. */
export const DEFAULT_KEEP_LAST = 2;

/** What an image costs a provider, roughly (a 1,000 × 1,000 screenshot is about 1,300 Anthropic tokens). */
export const IMAGE_TOKENS = 1_600;

/** An event as the loop emits it: the session adds the time and its id. */
export type EventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'at' | 'sessionId'>
    : never
  : never;

/**
 * One running session of the loop: the conversation, what it has cost, and the context it fills. Every
 * message enters through {@link Session.push} (which scans it for secrets) and every event through
 * {@link Session.emit} (sink and transcript); the loop reads and steers it through these methods only.
 */
export class Session {
  readonly options: RunAgentOptions;
  /** The system prompt as sent (secrets redacted). */
  readonly system: string;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly toolContext: ToolContext;
  readonly controller = new AbortController();
  readonly detector: LoopDetector;
  readonly now: () => number;
  readonly startedAt: number;
  /** The model's context window. */
  readonly windowTokens: number;
  /** The largest reply to ask for. */
  readonly maxOutputTokens: number;
  readonly messages: Message[] = [];
  /** Screenshots reach the model (false once it rejected an image, or it has no vision). */
  private sendImages: boolean;
  /** Model requests answered so far. */
  private answered = 0;
  private total: Usage = emptyUsage();
  /** Null when the model's price is unknown. */
  private cost: number | null;
  /** The model's last text, for summaries. */
  private text = '';
  /** True when the last request carried a harness note. */
  private noteSent = false;
  private readonly price: ModelPrice | null;
  /** Secret values and their base64 forms, longest first. */
  private readonly needles: readonly string[];
  /** Estimated tokens of the system prompt and tool schemas. */
  private readonly fixedTokens: number;
  /** Messages already sent to the model: never changed again (append-only context), elision aside. */
  private sentCount = 0;
  /** Messages already written to the transcript. */
  private transcribedCount = 0;
  /** True while the pending user message carries a harness note. */
  private notePending = false;
  /** Prompt tokens of the last request as the provider reported them, plus its reply's (0 until the first). */
  private reportedTokens = 0;
  /** Messages the reported count covers (the last request plus its reply). */
  private reportedCount = 0;
  /** Tool names by call id, to say where a redacted secret was. */
  private readonly callNames = new Map<string, string>();

  constructor(options: RunAgentOptions) {
    const settings = options.provider.settings;
    this.options = options;
    this.now = options.clock ?? Date.now;
    this.startedAt = this.now();
    this.price = priceForProvider(options.provider, options.prices);
    this.cost = this.price ? 0 : null;
    this.needles = outgoingNeedles(options.secrets ?? []);
    this.tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.toolContext = { ...options.toolContext, signal: this.controller.signal };
    this.detector = new LoopDetector(options.loopDetection);
    this.windowTokens = settings?.contextWindow ?? DEFAULT_WINDOW_TOKENS;
    this.maxOutputTokens =
      options.limits.maxOutputTokens ?? settings?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.sendImages = settings?.vision ?? true;
    this.fixedTokens = estimateTokens(options.system) + estimateTokens(options.tools.map(toolSchema));
    this.emit({ type: 'session.started', model: options.provider.id, tools: [...this.tools.keys()] });
    this.system = this.scrub(options.system, 'system');
    options.transcript?.write({
      kind: 'system',
      at: this.iso(),
      system: this.system,
      tools: [...this.tools.keys()],
    });
  }

  /** Model requests answered so far. */
  get steps(): number {
    return this.answered;
  }

  /** Token counts of all replies so far. */
  get usage(): Usage {
    return this.total;
  }

  /** What the session has cost; null when the model's price is unknown. */
  get costUsd(): number | null {
    return this.cost;
  }

  /** The model's last text, for summaries. */
  get lastText(): string {
    return this.text;
  }

  /** Whether screenshots reach the model (false once it rejected an image, or it has no vision). */
  get vision(): boolean {
    return this.sendImages;
  }

  /** The model rejected an image: the rest of the session sends a text note instead. */
  dropImages(): void {
    this.sendImages = false;
  }

  /** True when the last request carried a harness note (models may read it as the end of their turn). */
  get lastRequestHadNote(): boolean {
    return this.noteSent;
  }

  /** Aborted by the wall-clock timer, the caller's signal, or nothing. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds since the session started. */
  elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  /** The session clock as an ISO timestamp. */
  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Sends an event to the sink and the transcript; a throwing sink is logged, never fatal. */
  emit(body: EventBody): void {
    const event = { ...body, at: this.iso(), sessionId: this.options.sessionId } as AgentEvent;
    if (event.type !== 'text.delta') this.options.transcript?.write({ kind: 'event', at: event.at, event });
    try {
      this.options.sink?.(event);
    } catch (error) {
      log.warn({ err: error, type: event.type }, 'event sink threw; event dropped');
    }
  }

  /** Redacts secrets from `text` (reporting where), returning the text to send. */
  scrub(text: string, where: string): string {
    if (this.needles.length === 0) return text;
    const { text: clean, count } = redactNeedles(text, this.needles);
    if (count > 0) this.emit({ type: 'secret.redacted', step: this.steps, where, count });
    return clean;
  }

  /**
   * Appends a message. User messages are scanned for secrets before they enter the conversation, so what is
   * sent (and cached as the prefix) never carries them; assistant text is reported as `text` events.
   */
  push(message: Message): void {
    if (message.role === 'user') {
      const first = this.messages.length === 0;
      for (const block of message.content) {
        if (block.type === 'text') {
          block.text = this.scrub(block.text, first ? 'first_message' : 'note');
        } else {
          block.content = this.scrub(block.content, `tool_result:${this.toolName(block.toolCallId)}`);
        }
      }
    }
    this.messages.push(message);
    if (message.role !== 'assistant') return;
    for (const block of message.content) {
      if (block.type === 'tool_call') this.callNames.set(block.id, block.name);
      if (block.type === 'text' && block.text !== EMPTY_REPLY_TEXT) {
        this.text = block.text;
        this.emit({ type: 'text', step: this.steps, text: block.text });
      }
    }
  }

  /** Appends the model's reply; the provider's usage figure covers the conversation up to here. */
  pushReply(message: Message): void {
    this.push(message);
    this.reportedCount = this.messages.length;
  }

  /**
   * Adds harness notes without touching anything already sent. A pending user message with tool results
   * gets the note inside its last result: Anthropic documents that text placed right after tool results
   * makes the model return empty replies. Otherwise the note goes in a new (or the pending) user message.
   */
  addNote(note: string): void {
    const text = `${HARNESS_PREFIX} ${note}`;
    this.notePending = true;
    const last = this.messages.at(-1);
    const pending = last?.role === 'user' && this.messages.length > this.sentCount ? last : undefined;
    if (!pending) {
      this.push({ role: 'user', content: [{ type: 'text', text }] });
      return;
    }
    const results = pending.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
    const lastResult = results.at(-1);
    const clean = this.scrub(text, 'note');
    if (lastResult) lastResult.content = `${lastResult.content}\n\n${clean}`;
    else pending.content.push({ type: 'text', text: clean });
  }

  /** Everything so far is about to be sent: it is written down and never changed again. */
  markSent(): void {
    this.flushTranscript();
    this.sentCount = this.messages.length;
    this.noteSent = this.notePending;
    this.notePending = false;
  }

  /** Writes the messages not yet in the transcript. */
  flushTranscript(): void {
    const transcript = this.options.transcript;
    if (!transcript) return;
    for (; this.transcribedCount < this.messages.length; this.transcribedCount++) {
      const message = this.messages[this.transcribedCount] as Message;
      transcript.write({ kind: 'message', at: this.iso(), message });
    }
  }

  /** The tool a call id belongs to, for messages and events. */
  toolName(callId: string): string {
    return this.callNames.get(callId) ?? 'unknown';
  }

  /** Counts one answered request: its step, usage and cost, reported as `model.usage`. */
  countReply(response: ModelResponse, durationMs: number): void {
    const { usage } = response;
    const cost = this.price ? costAtPrice(this.price, usage) : null;
    this.answered++;
    this.total = addUsage(this.total, usage);
    this.cost = this.cost === null || cost === null ? null : this.cost + cost;
    const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    // A server that reports no usage leaves the estimate in charge.
    if (prompt > 0) this.reportedTokens = prompt + usage.outputTokens;
    this.emit({ type: 'model.usage', step: this.steps, usage, costUsd: cost, durationMs });
  }

  /**
   * Tokens the next request will carry: the provider's own count for the conversation up to the last reply,
   * plus an estimate of what was added since; before the first reply, an estimate of the whole request.
   */
  usedTokens(): number {
    if (this.reportedTokens === 0) return this.fixedTokens + estimateMessageTokens(this.messages);
    return this.reportedTokens + estimateMessageTokens(this.messages.slice(this.reportedCount));
  }

  /** Where the session stands, as hooks see it. */
  state(): LoopState {
    const used = this.usedTokens();
    return {
      sessionId: this.options.sessionId,
      step: this.steps,
      elapsedMs: this.elapsedMs(),
      usage: this.usage,
      costUsd: this.costUsd,
      messages: this.messages,
      context: { usedTokens: used, windowTokens: this.windowTokens, share: used / this.windowTokens },
    };
  }

  /**
   * Elides old results of the elidable tools once the context passes `elideAt` of the window: every such
   * result but the newest `keepLast` gets a one-line note instead of its content (and loses its images).
   * All at once, so the conversation's prefix changes at one point and is stable again after it.
   */
  elideOldResults(): void {
    const budget = this.options.contextBudget;
    const tools = new Set(budget?.elidableTools ?? []);
    if (tools.size === 0) return;
    const before = this.state().context;
    if (before.share < (budget?.elideAt ?? DEFAULT_ELIDE_AT)) return;
    const old = this.elidableResults(tools, budget?.keepLast ?? DEFAULT_KEEP_LAST);
    if (old.length === 0) return;
    let bytes = 0;
    let freed = 0;
    for (const { block, counted } of old) {
      const size = Buffer.byteLength(block.content);
      bytes += size;
      const note = elidedNote(this.callNames.get(block.toolCallId) ?? 'tool', size);
      // The provider's count covered results sent before: take the estimate of what was cut off it.
      if (counted)
        freed += estimateTokens(block.content) - estimateTokens(note) + (block.images?.length ?? 0) * 1_500;
      block.content = note;
      delete block.images;
    }
    this.reportedTokens = Math.max(0, this.reportedTokens - freed);
    const { usedTokens, windowTokens } = before;
    this.emit({
      type: 'context.elided',
      step: this.steps,
      results: old.length,
      bytes,
      usedTokens,
      windowTokens,
    });
  }

  /** Results of the given tools not yet elided, all but the newest `keep`, oldest first. */
  private elidableResults(tools: ReadonlySet<string>, keep: number) {
    const candidates: Array<{ block: ToolResultBlock; counted: boolean }> = [];
    this.messages.forEach((message, index) => {
      if (message.role !== 'user') return;
      for (const block of message.content) {
        if (block.type !== 'tool_result') continue;
        if (tools.has(this.callNames.get(block.toolCallId) ?? ''))
          candidates.push({ block, counted: index < this.reportedCount });
      }
    });
    return candidates
      .slice(0, Math.max(0, candidates.length - keep))
      .filter(({ block }) => !block.content.startsWith(ELIDED_PREFIX));
  }
}

/** How an elided tool result's note begins (the testkit's scripted model recognises it). */
export const ELIDED_PREFIX = '[elided by the harness';

/** What an elided result says instead of its content. */
function elidedNote(tool: string, bytes: number): string {
  return `${ELIDED_PREFIX} to keep the context small: an older ${tool} result of ${bytes} bytes. Call ${tool} again if you need the current state.]`;
}

/** Rough tokens of some JSON-able value: a third of its bytes (dense JSON and code run near 3 bytes a token). */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value)) / 3);
}

/** Rough tokens of messages: their text by bytes, each image at a flat rate (its base64 is not text). */
function estimateMessageTokens(messages: readonly Message[]): number {
  let images = 0;
  const text = JSON.stringify(messages, (key, value: unknown) => {
    if (key !== 'images' || !Array.isArray(value)) return value;
    images += value.length;
    return undefined;
  });
  return estimateTokens(text) + images * IMAGE_TOKENS;
}

/** Text blocks of a message, joined; handy for hooks. */
export function textOf(message: Message): string {
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
