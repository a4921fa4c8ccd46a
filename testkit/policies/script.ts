/**
 * Scripted sessions as straight-line code. A policy is asked once per model request and sees the whole
 * conversation, so a script is re-run from the start on every request: each `act`/`finish` call first
 * replays the matching recorded turn (returning its real tool results) and, past the end of the
 * recording, throws the reply to send now. Scripts must therefore be deterministic functions of what
 * the io returns (a per-session `tag`, chosen once and recorded in the first reply, gives them unique
 * names without breaking replay).
 */
import type { AssistantMessage, Message, ToolCallBlock, ToolResultBlock } from '../../agent/messages.js';
import type { PolicyReply, ScriptedConversation, ScriptedToolCall } from '../types.js';

/** One tool call of a replayed turn, with its result as the harness sent it back. */
export interface CallResult {
  name: string;
  arguments: Record<string, unknown>;
  content: string;
  isError: boolean;
}

/** What a script uses to talk to the harness. */
export interface ScriptIO {
  /** The system prompt of the session. */
  readonly system: string;
  /** Text of the first user message (the harness's assembled brief). */
  readonly firstMessage: string;
  /** Tools the request declared. */
  readonly toolNames: readonly string[];
  /** Short id unique to this session (e.g. `k3f9a`), for unique test data. Stable across replays. */
  readonly tag: string;
  /** One model reply with these tool calls (run in order by the harness); returns their results in order. */
  act(calls: readonly ScriptedToolCall[], text?: string): CallResult[];
  /** One model reply with one tool call; returns its result. */
  call(name: string, args: Record<string, unknown>, text?: string): CallResult;
  /**
   * Ends the turn with a text reply (no tool calls). When the harness sends the model back (a completion
   * check failed), returns the harness's message; when the session simply ended, control never comes back.
   */
  finish(text: string): string;
}

/** A scripted session: drives `io` and ends with `finish` (returning normally also ends the session). */
export type Script = (io: ScriptIO) => void;

/** Options of {@link runScript}. */
export interface RunScriptOptions {
  /** Put the session tag into the first reply's text so later requests can recover it (default false). */
  recordTag?: boolean;
  /** Makes a fresh tag; default: time and request index in base 36. */
  newTag?: (conversation: ScriptedConversation) => string;
}

/** Thrown to unwind a script at the first turn not yet in the recording; carries the reply to send. */
class PendingReply {
  constructor(readonly reply: PolicyReply) {}
}

/** The recording does not match what the script does now (a different script, or a fault altered the history). */
export class ScriptDivergedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptDivergedError';
  }
}

/** One assistant reply and everything the harness sent back after it (tool results, notes). */
interface RecordedTurn {
  calls: ToolCallBlock[];
  text: string;
  results: Map<string, ToolResultBlock>;
  /** Harness text after the reply: notes next to tool results, or the message after a stop. */
  harnessText: string[];
}

const TAG_PATTERN = /\(session tag: ([a-z0-9]+)\)/;

function textOfBlocks(content: Message['content']): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

/** Splits a conversation into its first user text and the assistant turns that followed. */
export function recordedTurns(messages: readonly Message[]): { firstMessage: string; turns: RecordedTurn[] } {
  const turns: RecordedTurn[] = [];
  const firstUser: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      turns.push(openTurn(message));
      continue;
    }
    const current = turns.at(-1);
    for (const block of message.content) {
      if (block.type === 'tool_result') current?.results.set(block.toolCallId, block);
      else if (current) current.harnessText.push(block.text);
      else firstUser.push(block.text);
    }
  }
  return { firstMessage: firstUser.join('\n'), turns };
}

function openTurn(message: AssistantMessage): RecordedTurn {
  return {
    calls: message.content.filter((block): block is ToolCallBlock => block.type === 'tool_call'),
    text: textOfBlocks(message.content),
    results: new Map(),
    harnessText: [],
  };
}

function defaultTag(conversation: ScriptedConversation): string {
  return `${(Date.now() % 36 ** 4).toString(36)}${conversation.requestIndex.toString(36)}`;
}

/** Runs a script against a conversation and returns the reply for this request. */
export function runScript(
  conversation: ScriptedConversation,
  script: Script,
  options: RunScriptOptions = {},
): PolicyReply {
  const { firstMessage, turns } = recordedTurns(conversation.messages);
  const recordedTag = turns[0] ? TAG_PATTERN.exec(turns[0].text)?.[1] : undefined;
  const tag = recordedTag ?? (options.newTag ?? defaultTag)(conversation);
  let cursor = 0;

  const withTag = (text: string | undefined, index: number): string | undefined => {
    if (!options.recordTag || index !== 0) return text;
    return `${text ?? ''} (session tag: ${tag})`.trim();
  };

  const io: ScriptIO = {
    system: conversation.system,
    firstMessage,
    toolNames: conversation.toolNames,
    tag,
    act(calls, text) {
      const index = cursor++;
      const turn = turns[index];
      if (!turn) throw new PendingReply({ text: withTag(text, index), toolCalls: [...calls] });
      const names = turn.calls.map((call) => call.name).join(',');
      if (names !== calls.map((call) => call.name).join(',')) {
        throw new ScriptDivergedError(
          `turn ${index + 1}: recorded calls [${names}], script wants [${calls.map((c) => c.name).join(',')}]`,
        );
      }
      return turn.calls.map((call) => resultOf(call, turn));
    },
    call(name, args, text) {
      return io.act([{ name, arguments: args }], text)[0] as CallResult;
    },
    finish(text) {
      const index = cursor++;
      const turn = turns[index];
      if (!turn) throw new PendingReply({ text: withTag(text, index) });
      if (turn.calls.length > 0) {
        throw new ScriptDivergedError(`turn ${index + 1}: recorded tool calls where the script stops`);
      }
      return turn.harnessText.join('\n');
    },
  };

  try {
    script(io);
    return { text: 'Done.' };
  } catch (error) {
    if (error instanceof PendingReply) return error.reply;
    if (error instanceof ScriptDivergedError) {
      return { text: `The scripted model lost track of this conversation (${error.message}); stopping.` };
    }
    throw error;
  }
}

function resultOf(call: ToolCallBlock, turn: RecordedTurn): CallResult {
  const result = turn.results.get(call.id);
  return {
    name: call.name,
    arguments: call.arguments,
    content: result?.content ?? '(no result was sent back for this call)',
    isError: result ? result.isError : true,
  };
}

/** The file text of a `read` result: its `   12\t` line-number prefixes removed. */
export function fileTextOfRead(content: string): string {
  return content
    .split('\n')
    .filter((line) => /^\s*\d+\t/.test(line))
    .map((line) => line.replace(/^\s*\d+\t/, ''))
    .join('\n');
}

/** The exit code a `bash` result reports, or null when it was killed or did not say. */
export function exitCodeOf(content: string): number | null {
  const match = /^exit code: (\d+)/m.exec(content);
  return match ? Number(match[1]) : null;
}

/** The io with `act` replaced (`call` goes through it too): how a wrapper changes what a script sends. */
export function withAct(io: ScriptIO, act: ScriptIO['act']): ScriptIO {
  return {
    system: io.system,
    firstMessage: io.firstMessage,
    toolNames: io.toolNames,
    tag: io.tag,
    act,
    call: (name, args, text) => act([{ name, arguments: args }], text)[0] as CallResult,
    finish: (text) => io.finish(text),
  };
}
