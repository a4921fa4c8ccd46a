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
import { afterEach, describe, expect, it } from 'vitest';
import { type EgressRefusal, startEgressProxy } from '../../../agent/sandbox/egress-proxy.js';
import { interfaceAddresses, type NetworkPolicy } from '../../../agent/sandbox/network-policy.js';

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
});
