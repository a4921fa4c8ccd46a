/**
 * The host side of a box's egress: an HTTP(S) forward proxy (CONNECT tunnels and absolute-URI HTTP requests)
 * listening on a Unix socket that is bound read-only into the box, where the relay exposes it on
 * 127.0.0.1. Every destination goes through the network policy, names are resolved here and the resolved
 * address is checked and dialled (no second lookup, so no DNS rebinding to loopback). A refusal is an
 * HTTP 403 whose body says which destination was refused and how to allow it, and is reported to the
 * harness through `onRefused`.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { moduleLogger } from '../core/log.js';
import {
  type AddressChoice,
  AddressClassifier,
  checkDestination,
  chooseAddress,
  HOST_LOOPBACK_ALIAS,
  type NetworkPolicy,
  normalizeHost,
} from './network-policy.js';
import { checkedOpening } from './tunnel-check.js';

const log = moduleLogger('box/egress');

/** One refused destination. */
export interface EgressRefusal {
  host: string;
  port: number;
  /** What the client was told. */
  reason: string;
  /** `CONNECT` for tunnels (HTTPS), otherwise the HTTP method. */
  method: string;
}

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** Where to listen (a path in a directory only the harness and this box see). */
  socketPath: string;
  policy: NetworkPolicy;
  /** Called once per refused destination request. */
  onRefused?: (refusal: EgressRefusal) => void;
  /** Time to open the upstream connection (default 30 s). */
  connectTimeoutMs?: number;
}

/** A running proxy. */
export interface EgressProxy {
  socketPath: string;
  /** The refusals so far (the first 100 kept in full). */
  readonly refusals: readonly EgressRefusal[];
  /** Refusals counted, including those past the first 100. */
  readonly refusedCount: number;
  /** Connections allowed so far. */
  readonly allowedCount: number;
  /** Stops listening and cuts every open connection. */
  close(): Promise<void>;
}

const MAX_KEPT_REFUSALS = 100;
const MAX_CONNECTIONS = 256;
/** Hop-by-hop headers a proxy must not forward. */
const HOP_HEADERS = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** Host and port of a CONNECT target (`host:port`, `[v6]:port`), or undefined. */
export function parseConnectTarget(target: string): { host: string; port: number } | undefined {
  const match = /^\[([0-9a-f:.]+)\]:(\d{1,5})$/i.exec(target) ?? /^([a-z0-9_.-]+):(\d{1,5})$/i.exec(target);
  if (!match) return undefined;
  const [host, port] = [match[1] as string, Number(match[2])];
  if (port < 1 || port > 65535 || (target.startsWith('[') && !net.isIPv6(host))) return undefined;
  return { host: normalizeHost(host), port };
}

function refusalBody(reason: string): string {
  return `nightshift sandbox: ${reason}\n`;
}

/** Writes a raw HTTP response on a socket that is not (or no longer) managed by the http server. */
function rawResponse(socket: Duplex, status: number, text: string, body: string, extra = ''): void {
  const length = Buffer.byteLength(body);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${length}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** What the request handlers share: the decision per destination and the connections to cut at close. */
export interface ProxyContext {
  /**
   * The address to dial, or the refusal (already reported). `target` is what the client asked for: the
   * absolute URL of a request, or the `host:port` of a CONNECT.
   */
  resolve(
    host: string,
    port: number,
    method: string,
    target: string,
  ): Promise<AddressChoice & { status?: number }>;
  sockets: Set<net.Socket>;
  connectTimeoutMs: number;
  /** Upstream connections for forwarded requests (default: a new connection per request). */
  agent?: http.Agent;
  /**
   * A tunnel to a name (not an address) must open with a TLS ClientHello whose server name (SNI) is that name;
   * anything else is cut and reported here. Unset: tunnels carry what the client sends (the browser gate's, which
   * reach the app's address only).
   */
  onTunnelRefused?: (refusal: EgressRefusal) => void;
}

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

function refusedResponse(status: number, reason: string): { head: Record<string, string>; body: string } {
  return {
    head: { ...TEXT, ...(status === 403 ? { 'X-Nightshift-Refused': 'network-policy' } : {}) },
    body: refusalBody(reason),
  };
}

/** CONNECT host:port: the policy, then a tunnel to the checked address. */
async function handleConnect(
  context: ProxyContext,
  request: http.IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  client.on('error', () => client.destroy());
  const target = parseConnectTarget(request.url ?? '');
  if (!target) {
    rawResponse(client, 400, 'Bad Request', refusalBody(`bad CONNECT target "${request.url}"`));
    return;
  }
  const choice = await context.resolve(target.host, target.port, 'CONNECT', request.url ?? '');
  if (!choice.ok) {
    const status = choice.status ?? 403;
    const refused = refusedResponse(status, choice.reason);
    const extra = Object.entries(refused.head)
      .filter(([name]) => name !== 'Content-Type')
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    rawResponse(client, status, status === 403 ? 'Forbidden' : 'Bad Gateway', refused.body, extra);
    return;
  }
  const upstream = net.connect({ host: choice.address, port: target.port, family: choice.family });
  context.sockets.add(upstream);
  upstream.setTimeout(context.connectTimeoutMs, () => upstream.destroy(new Error('connect timeout')));
  let established = false;
  const cut = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.once('connect', () => {
    established = true;
    upstream.setTimeout(0);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const splice = (opening: Buffer) => {
      if (opening.length) upstream.write(opening);
      upstream.pipe(client);
      client.pipe(upstream);
    };
    const onRefused = context.onTunnelRefused;
    if (!onRefused || net.isIP(target.host) || target.host === HOST_LOOPBACK_ALIAS) return splice(head);
    void checkedOpening(client, head, target.host, context.connectTimeoutMs).then((opening) => {
      if (opening.ok) return splice(opening.bytes);
      onRefused({ host: target.host, port: target.port, reason: opening.reason, method: 'CONNECT' });
      cut();
    });
  });
  upstream.once('error', (error) => {
    if (established) return cut();
    const reason = `could not connect to ${target.host}:${target.port}: ${error.message}`;
    rawResponse(client, 502, 'Bad Gateway', refusalBody(reason));
  });
  upstream.once('close', () => {
    context.sockets.delete(upstream);
    client.destroy();
  });
  client.once('close', cut);
}

function withoutHopHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));
}

/** An absolute-URI `http://` request: the policy, then forwarded to the checked address. */
async function handleRequest(
  context: ProxyContext,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const url = URL.canParse(request.url ?? '') ? new URL(request.url ?? '') : undefined;
  if (url?.protocol !== 'http:') {
    response.writeHead(400, TEXT);
    response.end(
      refusalBody(
        url
          ? `only http:// URLs are forwarded as requests (use CONNECT for ${url.protocol})`
          : 'this is the sandbox egress proxy: send absolute http:// URLs or CONNECT',
      ),
    );
    return;
  }
  const host = normalizeHost(url.hostname);
  const port = Number(url.port || 80);
  const choice = await context.resolve(host, port, request.method ?? 'GET', url.href);
  if (!choice.ok) {
    const refused = refusedResponse(choice.status ?? 403, choice.reason);
    response.writeHead(choice.status ?? 403, refused.head);
    response.end(refused.body);
    return;
  }
  const upstream = http.request({
    host: choice.address,
    family: choice.family,
    port,
    method: request.method,
    path: `${url.pathname}${url.search}`,
    // The Host the policy allowed, not the client's (RFC 9112 §3.2.2): no virtual-host hopping on an allowed server.
    headers: { ...withoutHopHeaders(request.headers), host: url.host },
    agent: context.agent ?? false,
    timeout: context.connectTimeoutMs,
  });
  upstream.on('response', (answer) => {
    response.writeHead(answer.statusCode ?? 502, withoutHopHeaders(answer.headers));
    answer.pipe(response);
  });
  upstream.on('timeout', () => upstream.destroy(new Error('timeout')));
  upstream.on('error', (error) => {
    if (response.headersSent) return response.destroy();
    response.writeHead(502, TEXT);
    response.end(refusalBody(`could not reach ${host}:${port}: ${error.message}`));
  });
  request.pipe(upstream);
}

/** Counts and reports refusals and allowed connections; `resolve` is the policy pipeline. */
function policyPipeline(options: EgressProxyOptions) {
  const classifier = new AddressClassifier();
  const stats = { refusals: [] as EgressRefusal[], refusedCount: 0, allowedCount: 0 };
  const refuse = (refusal: EgressRefusal) => {
    stats.refusedCount++;
    if (stats.refusals.length < MAX_KEPT_REFUSALS) stats.refusals.push(refusal);
    log.info({ host: refusal.host, port: refusal.port, method: refusal.method }, 'egress refused');
    try {
      options.onRefused?.(refusal);
    } catch (error) {
      log.warn({ err: error }, 'an egress refusal callback threw');
    }
  };
  const resolve: ProxyContext['resolve'] = async (asked, port, method) => {
    const host = asked === HOST_LOOPBACK_ALIAS ? '127.0.0.1' : asked;
    const decision = checkDestination(options.policy, host, port);
    if (!decision.allowed) {
      refuse({ host, port, reason: decision.reason, method });
      return { ok: false, reason: decision.reason, status: 403 };
    }
    let addresses: Array<{ address: string; family: number }>;
    try {
      addresses = net.isIP(host)
        ? [{ address: host, family: net.isIP(host) }]
        : await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return { ok: false, reason: `could not resolve ${host}: ${code}`, status: 502 };
    }
    const choice = chooseAddress(host, port, addresses, decision.explicit, classifier);
    if (!choice.ok) {
      refuse({ host, port, reason: choice.reason, method });
      return { ...choice, status: 403 };
    }
    stats.allowedCount++;
    return choice;
  };
  return { stats, resolve, refuse };
}

/**
 * An HTTP forward proxy server (CONNECT tunnels and absolute-URI `http://` requests) whose every destination
 * is decided by `context.resolve`; not yet listening. Shared by the box's egress proxy and the browser's gate.
 */
export function forwardProxyServer(context: ProxyContext): http.Server {
  const server = http.createServer({ requestTimeout: 0 });
  // Enough for parallel installs (npm opens ~50); past it new connections are closed at once.
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', (socket: net.Socket) => {
    context.sockets.add(socket);
    socket.once('close', () => context.sockets.delete(socket));
  });
  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    void handleConnect(context, request, client, head);
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    void handleRequest(context, request, response);
  });
  return server;
}

/** Stops a forward proxy server: cuts every open connection, then closes it. */
export function closeForwardProxy(server: http.Server, context: ProxyContext): Promise<void> {
  return new Promise<void>((resolveClose) => {
    for (const socket of context.sockets) socket.destroy();
    context.agent?.destroy();
    server.close(() => resolveClose());
  });
}

/** Starts the proxy; resolves once it listens. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { stats, resolve, refuse } = policyPipeline(options);
  const context: ProxyContext = {
    resolve,
    sockets: new Set(),
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    onTunnelRefused: refuse,
  };
  const server = forwardProxyServer(context);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  return {
    socketPath: options.socketPath,
    refusals: stats.refusals,
    get refusedCount() {
      return stats.refusedCount;
    },
    get allowedCount() {
      return stats.allowedCount;
    },
    close: () => closeForwardProxy(server, context),
  };
}
