import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startBrowserGate } from '../../../workers/browser-gate.js';

/** An app that counts its connections and tells when one closes. */
function app(): Promise<{ url: string; closed: Promise<void>; server: http.Server }> {
  const server = http.createServer((_req, res) => res.end('ok'));
  // An idle connection stays open for a minute (Node's default closes it after 5 s, which would hide a kept one).
  server.keepAliveTimeout = 60_000;
  let closedOne: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    closedOne = resolve;
  });
  server.on('connection', (socket: net.Socket) => socket.once('close', () => closedOne()));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/`, closed, server });
    }),
  );
}

/** The browser's side: it keeps its connections to the proxy open, as Chromium does. */
const browserAgent = new http.Agent({ keepAlive: true });

/** A GET of `url` through the proxy at `proxy` (as the browser sends it: the absolute URL as the path). */
function viaProxy(proxy: string, url: string): Promise<number> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve, reject) => {
    const request = http.get({ host: hostname, port, path: url, agent: browserAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

const servers: http.Server[] = [];
afterEach(() => {
  browserAgent.destroy();
  for (const server of servers.splice(0)) server.close();
});

describe('the browser gate pointed at another app', () => {
  it('keeps no connection to the last app: a kept context never reaches it again through the gate', async () => {
    const gate = await startBrowserGate();
    const [first, second] = await Promise.all([app(), app()]);
    servers.push(first.server, second.server);
    try {
      gate.allow(new URL(first.url).origin);
      expect(await viaProxy(gate.server, first.url)).toBe(200);
      const open = await new Promise<number>((resolve) =>
        first.server.getConnections((_error, count) => resolve(count)),
      );
      expect(open).toBe(1);
      // The gate keeps its connection to the first app open for the next request; pointed elsewhere, it drops it.
      gate.allow(new URL(second.url).origin);
      await first.closed;
      expect(await viaProxy(gate.server, second.url)).toBe(200);
      expect(await viaProxy(gate.server, first.url)).toBe(403);
    } finally {
      await gate.close();
    }
  });
});
