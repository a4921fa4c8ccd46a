/**
 * A tiny npm registry on the host's loopback for tests: serves one package (metadata + tarball), enough
 * for a real `npm install` through the box's egress proxy. Tarball URLs use the Host the client asked for,
 * so the box reaches them by the same name (host.nightshift.internal) it used for the metadata.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A running stand-in registry. */
export interface StandInRegistry {
  port: number;
  /** Requests received (method and path). */
  requests: string[];
  close(): Promise<void>;
}

function tarball(name: string, version: string, main: string): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ns-registry-'));
  try {
    fs.mkdirSync(path.join(dir, 'package'));
    fs.writeFileSync(
      path.join(dir, 'package', 'package.json'),
      JSON.stringify({ name, version, main: 'index.js', license: 'MIT' }),
    );
    fs.writeFileSync(path.join(dir, 'package', 'index.js'), main);
    execFileSync('tar', ['-czf', 'pkg.tgz', '--owner=0', '--group=0', 'package'], { cwd: dir });
    return fs.readFileSync(path.join(dir, 'pkg.tgz'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Serves `name@1.0.0` whose index.js is `main`. */
export async function startStandInRegistry(name: string, main: string): Promise<StandInRegistry> {
  const version = '1.0.0';
  const tgz = tarball(name, version, main);
  const file = `${name}-${version}.tgz`;
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const host = request.headers.host ?? '127.0.0.1';
    if (request.url === `/${name}`) {
      const packument = {
        name,
        'dist-tags': { latest: version },
        versions: {
          [version]: {
            name,
            version,
            main: 'index.js',
            dist: {
              tarball: `http://${host}/${name}/-/${file}`,
              shasum: createHash('sha1').update(tgz).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
            },
          },
        },
      };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(packument));
    } else if (request.url === `/${name}/-/${file}`) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      response.end(tgz);
    } else {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end('{"error":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
