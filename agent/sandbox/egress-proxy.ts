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
import { moduleLogger } from '../../core/log.js';
import {
  type AddressChoice,
  AddressClassifier,
  checkDestination,
  chooseAddress,
  HOST_LOOPBACK_ALIAS,
  type NetworkPolicy,
  normalizeHost,
} from './network-policy.js';

const log = moduleLogger('agent/sandbox/egress');

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

/** Starts the proxy; resolves once it listens. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const classifier = new AddressClassifier();
  const refusals: EgressRefusal[] = [];
  const sockets = new Set<net.Socket>();
  let refusedCount = 0;
  let allowedCount = 0;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;

  const refuse = (refusal: EgressRefusal) => {
    refusedCount++;
    if (refusals.length < MAX_KEPT_REFUSALS) refusals.push(refusal);
    log.info({ host: refusal.host, port: refusal.port, method: refusal.method }, 'egress refused');
    try {
      options.onRefused?.(refusal);
    } catch (error) {
      log.warn({ err: error }, 'an egress refusal callback threw');
    }
  };

  /** Policy, then resolution, then the address check: the address to dial or the refusal already reported. */
  const resolve = async (
    asked: string,
    port: number,
    method: string,
  ): Promise<AddressChoice & { status?: number }> => {
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
      return {
        ok: false,
        reason: `could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? error}`,
        status: 502,
      };
    }
    const choice = chooseAddress(host, port, addresses, decision.explicit, classifier);
    if (!choice.ok) {
      refuse({ host, port, reason: choice.reason, method });
      return { ...choice, status: 403 };
    }
    allowedCount++;
    return choice;
  };

  const server = http.createServer({ requestTimeout: 0 });
  // Enough for parallel installs (npm opens ~50); past it the box's new connections are closed at once.
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    void handleConnect(request, client, head);
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    void handleRequest(request, response);
  });

  async function handleConnect(request: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const target = parseConnectTarget(request.url ?? '');
    if (!target) {
      rawResponse(client, 400, 'Bad Request', refusalBody(`bad CONNECT target "${request.url}"`));
      return;
    }
    const choice = await resolve(target.host, target.port, 'CONNECT');
    if (!choice.ok) {
      const status = choice.status ?? 403;
      rawResponse(
        client,
        status,
        status === 403 ? 'Forbidden' : 'Bad Gateway',
        refusalBody(choice.reason),
        status === 403 ? 'X-Nightshift-Refused: network-policy\r\n' : '',
      );
      return;
    }
    const upstream = net.connect({ host: choice.address, port: target.port, family: choice.family });
    sockets.add(upstream);
    upstream.setTimeout(connectTimeoutMs, () => upstream.destroy(new Error('connect timeout')));
    let established = false;
    const cut = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.once('connect', () => {
      established = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error) => {
      if (!established) {
        rawResponse(
          client,
          502,
          'Bad Gateway',
          refusalBody(`could not connect to ${target.host}:${target.port}: ${error.message}`),
        );
      } else cut();
    });
    upstream.once('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.once('close', cut);
  }

  async function handleRequest(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(refusalBody('this is the sandbox egress proxy: send absolute http:// URLs or CONNECT'));
      return;
    }
    if (url.protocol !== 'http:') {
      response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(
        refusalBody(`only http:// URLs are forwarded as requests (use CONNECT for ${url.protocol})`),
      );
      return;
    }
    const host = normalizeHost(url.hostname);
    const port = Number(url.port || 80);
    const choice = await resolve(host, port, request.method ?? 'GET');
    if (!choice.ok) {
      const status = choice.status ?? 403;
      response.writeHead(status, {
        'Content-Type': 'text/plain; charset=utf-8',
        ...(status === 403 ? { 'X-Nightshift-Refused': 'network-policy' } : {}),
      });
      response.end(refusalBody(choice.reason));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())),
    );
    const upstream = http.request({
      host: choice.address,
      family: choice.family,
      port,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
      agent: false,
      timeout: connectTimeoutMs,
    });
    upstream.on('response', (answer) => {
      const forwarded = Object.fromEntries(
        Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())),
      );
      response.writeHead(answer.statusCode ?? 502, forwarded);
      answer.pipe(response);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timeout')));
    upstream.on('error', (error) => {
      if (!response.headersSent) {
        response.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end(refusalBody(`could not reach ${host}:${port}: ${error.message}`));
      } else response.destroy();
    });
    request.pipe(upstream);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  return {
    socketPath: options.socketPath,
    refusals,
    get refusedCount() {
      return refusedCount;
    },
    get allowedCount() {
      return allowedCount;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolveClose());
      }),
  };
}
