import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { moduleLogger } from '../core/log.js';
import { anthropicErrorBody, anthropicMessageJson, anthropicStreamEvents } from './anthropic-format.js';
import { PromptCache, simulateUsage } from './cache.js';
import { type ErrorReply, errorFor, imagesRefused, sendError } from './errors.js';
import { openAICompletionJson, openAIErrorBody, openAIStreamChunks } from './openai-format.js';
import { faultReply, type OutgoingReply, outgoingReply, truncatedReply } from './reply.js';
import { ToolResultMemory } from './result-memory.js';
import {
  type Fault,
  type ModelListRequest,
  type ModelServer,
  type Policy,
  PolicyReply,
  type RecordedRequest,
  type ScriptedConversation,
  type ServerQuirks,
  type WireFormat,
} from './types.js';
import {
  AnthropicRequestBody,
  OpenAIRequestBody,
  parseAnthropicRequest,
  parseOpenAIRequest,
} from './wire.js';

const log = moduleLogger('testkit/server');

/** Options of {@link startModelServer}. */
export interface ModelServerOptions {
  /** Decides every reply (until `setPolicy`). */
  policy: Policy;
  /** Pause between streamed events, and before a non-streamed reply (default 0). */
  latencyMs?: number;
  /** Loopback only. */
  host?: '127.0.0.1';
  /** Port to listen on (default 0: a free one). */
  port?: number;
  /** How the server misbehaves on every request (Ollama-style tool calls, `<think>`, text-only…). */
  quirks?: ServerQuirks;
  /**
   * The keys the model list (`GET /v1/models`) accepts; another key (or none) gets the provider's 401 there.
   * Default: any key. Model requests are not affected (use an `auth_error` fault for those).
   */
  modelListKeys?: readonly string[];
}

/** Everything a request handler shares. */
interface ServerState {
  policy: Policy;
  quirks: ServerQuirks;
  faults: Fault[];
  requests: RecordedRequest[];
  cache: PromptCache;
  /** Results as the scripted model first read them, for replays of conversations the harness elided. */
  memory: ToolResultMemory;
  latencyMs: number;
  /** Aborted on close: ends pending delays. */
  closing: AbortController;
  modelListKeys?: readonly string[];
  modelLists: ModelListRequest[];
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function pause(ms: number, state: ServerState): Promise<void> {
  if (ms <= 0) return;
  await sleep(ms, undefined, { signal: state.closing.signal }).catch(() => undefined);
}

/** Writes SSE frames one by one (pausing `latencyMs` between them); stops when the client is gone. */
async function writeFrames(
  res: ServerResponse,
  frames: string[],
  state: ServerState,
  cutAfter?: number,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const [index, frame] of frames.entries()) {
    if (res.destroyed || state.closing.signal.aborted) return;
    if (cutAfter !== undefined && index >= cutAfter) {
      // The reset fault: the stream dies midway, without a proper end.
      res.socket?.destroy();
      return;
    }
    res.write(frame);
    await pause(state.latencyMs, state);
  }
  res.end();
}

function sseFrames(
  format: WireFormat,
  reply: OutgoingReply,
  conversation: ScriptedConversation,
  usage: ReturnType<typeof simulateUsage>,
  includeUsage: boolean,
  quirks: ServerQuirks,
): string[] {
  if (format === 'anthropic') {
    return anthropicStreamEvents(reply, conversation.model, usage).map(
      (event) => `event: ${event.event}\ndata: ${event.data}\n\n`,
    );
  }
  const chunks = openAIStreamChunks(reply, conversation.model, usage, includeUsage, quirks);
  return [...chunks.map((chunk) => `data: ${chunk}\n\n`), 'data: [DONE]\n\n'];
}

/** Parses a body in its wire format; a bad body yields the message for a 400. */
function parseRequest(
  format: WireFormat,
  raw: string,
):
  | {
      body: Record<string, unknown>;
      conversation: Omit<ScriptedConversation, 'requestIndex'>;
      stream: boolean;
      includeUsage: boolean;
    }
  | string {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return 'request body is not valid JSON';
  }
  if (format === 'anthropic') {
    const parsed = AnthropicRequestBody.safeParse(json);
    if (!parsed.success) return `invalid Messages request: ${parsed.error.message}`;
    return {
      body: parsed.data,
      conversation: parseAnthropicRequest(parsed.data),
      stream: parsed.data.stream === true,
      includeUsage: true,
    };
  }
  const parsed = OpenAIRequestBody.safeParse(json);
  if (!parsed.success) return `invalid Chat Completions request: ${parsed.error.message}`;
  return {
    body: parsed.data,
    conversation: parseOpenAIRequest(parsed.data),
    stream: parsed.data.stream === true,
    includeUsage: parsed.data.stream_options?.include_usage === true,
  };
}

/** Asks the policy; a throwing policy or an invalid reply becomes an error reply naming the problem. */
async function askPolicy(
  state: ServerState,
  conversation: ScriptedConversation,
): Promise<PolicyReply | ErrorReply> {
  try {
    const reply = PolicyReply.safeParse(await state.policy(conversation));
    if (reply.success) return reply.data;
    return { status: 500, message: `scripted policy returned an invalid reply: ${reply.error.message}` };
  } catch (error) {
    log.warn({ err: error, requestIndex: conversation.requestIndex }, 'scripted policy threw');
    return {
      status: 500,
      message: `scripted policy threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Logs a request and watches its connection; `resetByUs` keeps a deliberate reset from counting as a client close. */
function recordRequest(format: WireFormat, raw: string, res: ServerResponse, state: ServerState) {
  const record: RecordedRequest = {
    index: state.requests.length,
    format,
    model: '',
    stream: false,
    bodyBytes: Buffer.byteLength(raw),
    body: raw,
    receivedAt: Date.now(),
  };
  state.requests.push(record);
  const connection = { record, resetByUs: false };
  res.on('close', () => {
    if (!res.writableFinished && !connection.resetByUs) record.clientClosed = true;
  });
  res.on('finish', () => {
    record.status = res.statusCode;
  });
  return connection;
}

/** The queued fault, else the policy's reply (which may itself be a fault). */
async function decide(
  state: ServerState,
  conversation: ScriptedConversation,
): Promise<{ fault?: Fault; reply?: PolicyReply } | ErrorReply> {
  const queued = state.faults.shift();
  // Faults that only change timing, transport or the end of the reply still deliver (part of) the policy's reply.
  if (queued && !['slow', 'reset', 'max_tokens'].includes(queued.kind)) return { fault: queued };
  const answer = await askPolicy(state, conversation);
  if ('status' in answer) return answer;
  return { fault: queued ?? ('fault' in answer ? answer.fault : undefined), reply: answer };
}

async function handleModelRequest(
  format: WireFormat,
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
): Promise<void> {
  const raw = await readBody(req).catch(() => undefined);
  const connection = recordRequest(format, raw ?? '', res, state);
  if (raw === undefined) {
    // The client left while still sending (aborted or timed out early).
    connection.record.clientClosed = true;
    return;
  }
  const { record } = connection;
  const parsed = parseRequest(format, raw);
  if (typeof parsed === 'string') return sendError(res, format, { status: 400, message: parsed }, sendJson);
  record.model = parsed.conversation.model;
  record.stream = parsed.stream;
  const conversation: ScriptedConversation = {
    ...parsed.conversation,
    messages: state.memory.recall(parsed.conversation.messages),
    requestIndex: record.index,
  };

  const decision = await decide(state, conversation);
  if ('status' in decision) return sendError(res, format, decision, sendJson);
  const { fault, reply } = decision;
  const cut =
    fault?.kind === 'max_tokens' || (reply !== undefined && 'truncated' in reply && reply.truncated);
  record.fault = fault?.kind ?? (cut ? 'max_tokens' : undefined);
  const error = (fault && errorFor(fault, format, conversation.model)) ?? imagesRefused(state.quirks, raw);
  if (error) return sendError(res, format, error, sendJson);
  if (fault?.kind === 'reset' && !parsed.stream) {
    connection.resetByUs = true;
    req.socket.destroy();
    return;
  }
  if (fault?.kind === 'slow') await pause(fault.delayMs, state);
  if (res.destroyed) return;

  const policyReply = outgoingReply(reply && !('fault' in reply) ? reply : {}, format);
  const outgoing =
    (fault && faultReply(fault, conversation)) ?? (cut ? truncatedReply(policyReply) : policyReply);
  const usage = simulateUsage(state.cache, format, parsed.body, conversation.model, outgoing);
  if (!parsed.stream) {
    await pause(state.latencyMs, state);
    if (res.destroyed) return;
    const body =
      format === 'anthropic'
        ? anthropicMessageJson(outgoing, conversation.model, usage)
        : openAICompletionJson(outgoing, conversation.model, usage, state.quirks);
    return sendJson(res, 200, body);
  }
  const frames = sseFrames(format, outgoing, conversation, usage, parsed.includeUsage, state.quirks);
  const cutAfter = fault?.kind === 'reset' ? Math.max(1, Math.floor(frames.length / 2)) : undefined;
  connection.resetByUs = cutAfter !== undefined;
  await writeFrames(res, frames, state, cutAfter);
}

function route(req: IncomingMessage, res: ServerResponse, state: ServerState): Promise<void> | void {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/health')
    return sendJson(res, 200, { ok: true, requests: state.requests.length });
  // The model list both APIs answer (what `nightshift doctor` asks a base URL for).
  if (req.method === 'GET' && path === '/v1/models') return modelList(req, res, state);
  if (req.method === 'POST' && path === '/v1/messages')
    return handleModelRequest('anthropic', req, res, state);
  if (req.method === 'POST' && path === '/v1/chat/completions')
    return handleModelRequest('openai', req, res, state);
  sendJson(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: 'not_found_error' } });
}

/**
 * `GET /v1/models`: the list, in the caller's format (the Anthropic SDK sends `anthropic-version`), or the
 * provider's 401 for a key the server was told not to accept. Each request is recorded (format and whether a key
 * came, never the key).
 */
function modelList(req: IncomingMessage, res: ServerResponse, state: ServerState): void {
  const format: WireFormat = req.headers['anthropic-version'] ? 'anthropic' : 'openai';
  // The key comes as `x-api-key` or a bearer token (the Anthropic SDK sends either, by version).
  const key =
    String(req.headers['x-api-key'] ?? '') || String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const accepted = !state.modelListKeys || state.modelListKeys.includes(key);
  state.modelLists.push({ format, withKey: key !== '', accepted });
  if (!accepted) {
    const message = format === 'anthropic' ? 'invalid x-api-key' : 'Incorrect API key provided.';
    sendJson(
      res,
      401,
      format === 'anthropic'
        ? anthropicErrorBody(401, message)
        : openAIErrorBody(401, message, 'invalid_api_key'),
    );
    return;
  }
  const model = {
    id: 'scripted',
    created_at: '2026-01-01T00:00:00Z',
    display_name: 'Scripted',
    type: 'model',
  };
  sendJson(
    res,
    200,
    format === 'anthropic'
      ? { data: [model], has_more: false, first_id: 'scripted', last_id: 'scripted' }
      : { object: 'list', data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'testkit' }] },
  );
}

/**
 * Starts the scripted model server on a free loopback port. It speaks the Anthropic Messages API at
 * `POST /v1/messages` and the OpenAI Chat Completions API at `POST /v1/chat/completions` (streaming
 * and not), asks the policy for every reply, applies queued faults, and records every request.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const state: ServerState = {
    policy: options.policy,
    quirks: options.quirks ?? {},
    faults: [],
    requests: [],
    cache: new PromptCache(),
    memory: new ToolResultMemory(),
    latencyMs: options.latencyMs ?? 0,
    closing: new AbortController(),
    ...(options.modelListKeys ? { modelListKeys: options.modelListKeys } : {}),
    modelLists: [],
  };
  const server = createServer((req, res) => {
    Promise.resolve(route(req, res, state)).catch((error: unknown) => {
      log.error({ err: error }, 'scripted model server failed on a request');
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  log.debug({ url }, 'scripted model server listening');
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests: state.requests,
    modelLists: state.modelLists,
    setPolicy(policy) {
      state.policy = policy;
    },
    setQuirks(quirks) {
      state.quirks = quirks;
    },
    injectFaults(faults) {
      state.faults.push(...faults);
    },
    async close() {
      state.closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
