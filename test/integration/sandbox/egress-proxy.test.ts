/**
 * The egress proxy over its real Unix socket, as a box's client would use it: CONNECT tunnels and
 * absolute-URI requests, refusals (policy, ports, names resolving to this host, IPv6 loopback) with a 403
 * that says how to allow the destination, and nothing reaching a server that is not allowed.
 */
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { type EgressRefusal, startEgressProxy } from '../../../box/egress-proxy.js';
import { interfaceAddresses, type NetworkPolicy } from '../../../box/network-policy.js';
import { readTunnelOpening } from '../../../box/tunnel-check.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Target {
  port: number;
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders }>;
}

async function target(host = '127.0.0.1'): Promise<Target> {
  const requests: Target['requests'] = [];
  const server = http.createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    response.end(`target saw ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, requests };
}

async function proxy(policy: NetworkPolicy) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-egress-'));
  const refusals: EgressRefusal[] = [];
  const started = await startEgressProxy({
    socketPath: path.join(dir, 'proxy.sock'),
    policy,
    onRefused: (refusal) => refusals.push(refusal),
  });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => started.close());
  return Object.assign(started, { seen: refusals });
}

/** Sends a CONNECT, then (when the tunnel opens) a GET through it; returns the raw text received. */
function connectThrough(socketPath: string, authority: string, hostHeader = authority): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let text = '';
    let tunnelled = false;
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      if (!tunnelled && text.startsWith('HTTP/1.1 200')) {
        tunnelled = true;
        socket.write(`GET /through HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

function getThrough(
  socketPath: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, path: url, headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the egress proxy', () => {
  it('tunnels to an explicitly listed loopback destination and forwards absolute-URI requests', async () => {
    const server = await target();
    const egress = await proxy({ mode: 'registries', allowHosts: [`127.0.0.1:${server.port}`] });
    const tunnel = await connectThrough(egress.socketPath, `127.0.0.1:${server.port}`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(tunnel).toContain('target saw /through');
    const plain = await getThrough(egress.socketPath, `http://127.0.0.1:${server.port}/plain?x=1`, {
      'Proxy-Authorization': 'Basic c2VjcmV0',
      'X-Kept': 'yes',
    });
    expect(plain).toEqual({ status: 200, body: 'target saw /plain?x=1' });
    const forwarded = server.requests.at(-1)?.headers ?? {};
    expect(forwarded['x-kept']).toBe('yes');
    expect(forwarded['proxy-authorization']).toBeUndefined();
    expect(egress.allowedCount).toBe(2);
    expect(egress.refusedCount).toBe(0);
  });

  it('refuses an allowed name on a port that is not allowed, before resolving it', async () => {
    const egress = await proxy({ mode: 'registries', allowHosts: [] });
    const answer = await connectThrough(egress.socketPath, 'registry.npmjs.org:22');
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(answer).toContain('X-Nightshift-Refused: network-policy');
    expect(answer).toContain(
      'registry.npmjs.org:22 is not allowed by the sandbox\'s network policy "registries"',
    );
    expect(answer).toContain('add "registry.npmjs.org:22" to sandbox.allowHosts');
    expect(egress.seen).toEqual([
      expect.objectContaining({ host: 'registry.npmjs.org', port: 22, method: 'CONNECT' }),
    ]);
  });

  it('open never reaches this host: localhost, 127.0.0.1, [::1], its own interface addresses', async () => {
    const v4 = await target('127.0.0.1');
    const egress = await proxy({ mode: 'open', allowHosts: [] });
    for (const authority of [`localhost:${v4.port}`, `127.0.0.1:${v4.port}`, `LOCALHOST.:${v4.port}`]) {
      const answer = await connectThrough(egress.socketPath, authority);
      expect(answer, authority).toMatch(/^HTTP\/1\.1 403/);
      expect(answer, authority).toContain('resolves only to non-public addresses');
    }
    const plain = await getThrough(egress.socketPath, `http://localhost:${v4.port}/`);
    expect(plain.status).toBe(403);
    const v6 = await target('::1').catch(() => undefined);
    if (v6) {
      const answer = await connectThrough(egress.socketPath, `[::1]:${v6.port}`);
      expect(answer).toContain('::1 (loopback)');
      expect(v6.requests).toEqual([]);
    }
    const own = interfaceAddresses().find((address) => !address.startsWith('127.') && address !== '::1');
    if (own) {
      const answer = await connectThrough(egress.socketPath, net.isIPv6(own) ? `[${own}]:80` : `${own}:80`);
      expect(answer, own).toMatch(/^HTTP\/1\.1 403/);
    }
    expect(v4.requests).toEqual([]);
    expect(egress.refusedCount).toBeGreaterThanOrEqual(4);
  });

  it('reaches host.nightshift.internal only on a listed 127.0.0.1 port', async () => {
    const listed = await target();
    const unlisted = await target();
    const egress = await proxy({ mode: 'registries', allowHosts: [`127.0.0.1:${listed.port}`] });
    const ok = await getThrough(egress.socketPath, `http://host.nightshift.internal:${listed.port}/ok`);
    expect(ok).toEqual({ status: 200, body: 'target saw /ok' });
    const refused = await getThrough(
      egress.socketPath,
      `http://host.nightshift.internal:${unlisted.port}/no`,
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`127.0.0.1:${unlisted.port} is not allowed`);
    expect(unlisted.requests).toEqual([]);
  });

  it('answers a bad CONNECT target, https:// requests and origin-form requests with 400', async () => {
    const egress = await proxy({ mode: 'open', allowHosts: [] });
    expect(await connectThrough(egress.socketPath, 'no-port-here')).toMatch(/^HTTP\/1\.1 400/);
    expect((await getThrough(egress.socketPath, 'https://example.com/')).status).toBe(400);
    const origin = await getThrough(egress.socketPath, '/just-a-path');
    expect(origin.status).toBe(400);
    expect(origin.body).toContain('egress proxy');
  });

  it('sends the Host it allowed: a forwarded request cannot name another virtual host', async () => {
    const server = await target();
    const egress = await proxy({ mode: 'registries', allowHosts: [`localhost:${server.port}`] });
    const answer = await getThrough(egress.socketPath, `http://localhost:${server.port}/vhost`, {
      Host: 'internal-admin.example',
    });
    expect(answer.status).toBe(200);
    expect(server.requests.map((request) => request.headers.host)).toEqual([`localhost:${server.port}`]);
  });
});

/** A TCP server that keeps every byte it receives (it never answers: a TLS handshake stops at the hello). */
async function byteSink(): Promise<{ port: number; received: () => Buffer }> {
  const chunks: Buffer[] = [];
  const server = net.createServer((socket) => {
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { port: (server.address() as AddressInfo).port, received: () => Buffer.concat(chunks) };
}

/** Opens a CONNECT tunnel; resolves with the socket once the proxy answered 200. */
function tunnel(socketPath: string, authority: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    cleanups.push(() => socket.destroy());
    socket.once('error', reject);
    socket.once('data', (chunk) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 200')) resolve(socket);
      else reject(new Error(chunk.toString('latin1')));
    });
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

/** Starts a real TLS handshake (Node's client) asking for `servername` through the socket. */
function helloThrough(socket: net.Socket, servername: string): Promise<void> {
  return new Promise((resolve) => {
    const secure = tls.connect({ socket, servername, rejectUnauthorized: false });
    secure.on('error', () => resolve());
    socket.once('close', () => resolve());
    cleanups.push(() => secure.destroy());
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400 && !check(); tries++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('the egress proxy: one host per tunnel (virtual-host hopping)', () => {
  it('lets a TLS handshake through when its server name (SNI) is the host the tunnel was allowed for', async () => {
    const sink = await byteSink();
    const egress = await proxy({ mode: 'registries', allowHosts: [`localhost:${sink.port}`] });
    void helloThrough(await tunnel(egress.socketPath, `localhost:${sink.port}`), 'localhost');
    await until('the ClientHello at the destination', () => sink.received().length > 0);
    expect(readTunnelOpening(sink.received())).toEqual({ kind: 'client_hello', serverName: 'localhost' });
    expect(egress.refusedCount).toBe(0);
  });

  it('cuts a tunnel whose TLS handshake asks for another name, or that carries plain text', async () => {
    const sink = await byteSink();
    const egress = await proxy({ mode: 'registries', allowHosts: [`localhost:${sink.port}`] });
    await helloThrough(await tunnel(egress.socketPath, `localhost:${sink.port}`), 'internal-admin.example');
    const plain = await tunnel(egress.socketPath, `localhost:${sink.port}`);
    const closed = new Promise((resolve) => plain.once('close', resolve));
    plain.write('GET / HTTP/1.1\r\nHost: internal-admin.example\r\n\r\n');
    await closed;
    expect(sink.received().length).toBe(0);
    expect(egress.seen).toEqual([
      expect.objectContaining({
        host: 'localhost',
        port: sink.port,
        method: 'CONNECT',
        reason: expect.stringContaining('asks for "internal-admin.example" (virtual-host hopping)'),
      }),
      expect.objectContaining({ reason: expect.stringContaining('carries TLS only') }),
    ]);
  });
});

describe('readTunnelOpening', () => {
  it('reads the SNI of a real ClientHello, whole or split across records and chunks', async () => {
    const sink = await byteSink();
    const raw = net.connect(sink.port, '127.0.0.1');
    cleanups.push(() => raw.destroy());
    void helloThrough(raw, 'Registry.NPMJS.org.');
    await until('a ClientHello', () => readTunnelOpening(sink.received()).kind === 'client_hello');
    const hello = sink.received();
    expect(readTunnelOpening(hello)).toEqual({ kind: 'client_hello', serverName: 'registry.npmjs.org' });
    for (const cut of [1, 5, 40, hello.length - 1]) {
      expect(readTunnelOpening(hello.subarray(0, cut))).toEqual({ kind: 'incomplete' });
    }
    // The same handshake split over two TLS records (a client may fragment it).
    const body = hello.subarray(5);
    const record = (part: Buffer) =>
      Buffer.concat([Buffer.from([0x16, 0x03, 0x01, part.length >> 8, part.length & 0xff]), part]);
    const split = Buffer.concat([record(body.subarray(0, 30)), record(body.subarray(30))]);
    expect(readTunnelOpening(split)).toEqual({ kind: 'client_hello', serverName: 'registry.npmjs.org' });
    expect(readTunnelOpening(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({ kind: 'not_tls' });
    expect(readTunnelOpening(Buffer.from([0x16, 0x09, 0x01, 0, 4, 1, 0, 0, 0]))).toEqual({ kind: 'not_tls' });
  });
});
