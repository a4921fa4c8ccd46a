/**
 * The evaluator's browser reaches the app under test and nothing else. Every evaluation's browser context is
 * created with a proxy of its own — this gate, an HTTP forward proxy on the host's 127.0.0.1 — and with
 * loopback *not* bypassed (`<-loopback>`), so every request of the context goes through it: documents,
 * subresources, fetch/XHR, beacons, pings, form posts, navigations and redirects, frames, popups, workers and
 * service workers, WebSockets and https (as CONNECT tunnels), prefetches, CSP reports. Chromium applies the
 * proxy in the context's network context itself (CDP `Target.createBrowserContext({ proxyServer })`), below
 * everything a page can script, so it needs no list of request kinds to stay complete — unlike request
 * interception (`context.route`), which misses some of them. The gate forwards only to the app's host and port
 * and answers everything else with a 403 whose body says why; WebRTC, the one path around a proxy, is pinned to
 * proxied TCP by a launch flag (workers/browser-pool.ts).
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { closeForwardProxy, forwardProxyServer, type ProxyContext } from '../box/egress-proxy.js';
import { normalizeHost } from '../box/network-policy.js';
import { moduleLogger } from '../core/log.js';

const log = moduleLogger('workers/browser-gate');

/** A request of the page that the gate refused. */
export interface BlockedRequest {
  /** The HTTP method, or `CONNECT` for a WebSocket or https tunnel. */
  method: string;
  /** The absolute URL asked for, or `host:port` of a tunnel. */
  target: string;
  /** Why, as the page was told. */
  reason: string;
}

/** One browser context's proxy. */
export interface BrowserGate {
  /** `http://127.0.0.1:<port>`: the proxy server to give the context. */
  readonly server: string;
  /** Forwards requests for this origin (`http://host:port`) from now on; until then nothing is forwarded. */
  allow(origin: string): void;
  /** Receives each refused request from now on (replaces the previous receiver). */
  onBlocked(listener: (blocked: BlockedRequest) => void): void;
  /** Stops listening and cuts every open connection. */
  close(): Promise<void>;
}

/** The one destination a gate forwards to. */
interface Allowed {
  origin: string;
  host: string;
  port: number;
}

/** The origin as host and port, when it is an `http://` origin; otherwise undefined. */
export function gateDestination(origin: string): Allowed | undefined {
  if (!URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  if (url.protocol !== 'http:') return undefined;
  return { origin: url.origin, host: normalizeHost(url.hostname), port: Number(url.port || 80) };
}

/** Starts a gate on an ephemeral port of 127.0.0.1 that allows nothing yet. */
export async function startBrowserGate(): Promise<BrowserGate> {
  let allowed: Allowed | undefined;
  let listener: ((blocked: BlockedRequest) => void) | undefined;
  const context: ProxyContext = {
    sockets: new Set(),
    connectTimeoutMs: 15_000,
    // The browser opens a handful of connections per page; keeping them open saves a relay hop per request.
    agent: keepAliveAgent(),
    async resolve(host, port, method, target) {
      if (allowed && host === allowed.host && port === allowed.port) {
        const family = net.isIP(host);
        if (family === 4 || family === 6) return { ok: true, address: host, family };
        const found = await lookup(host);
        return { ok: true, address: found.address, family: found.family === 6 ? 6 : 4 };
      }
      const asked = method === 'CONNECT' ? target : originOf(target);
      const reason = allowed
        ? `blocked by nightshift: ${asked} is not the app under test (only ${allowed.origin} is reachable)`
        : `blocked by nightshift: ${asked} (no app is open yet)`;
      log.debug({ method, target }, 'browser request blocked');
      try {
        listener?.({ method, target, reason });
      } catch (error) {
        log.warn({ err: error }, 'a blocked-request listener threw');
      }
      return { ok: false, reason, status: 403 };
    },
  };
  const server = forwardProxyServer(context);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    allow(origin) {
      const destination = gateDestination(origin);
      if (!destination) throw new Error(`the browser gate allows only http:// origins, not "${origin}"`);
      if (allowed && allowed.origin !== destination.origin) {
        // A kept context pointed at another app: no connection kept for the last one is used again.
        const old = context.agent;
        context.agent = keepAliveAgent();
        old?.destroy();
      }
      allowed = destination;
    },
    onBlocked(receiver) {
      listener = receiver;
    },
    close: () => closeForwardProxy(server, context),
  };
}

function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 16 });
}

function originOf(target: string): string {
  return URL.canParse(target) ? new URL(target).origin : target;
}
