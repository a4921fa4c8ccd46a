/**
 * The relay inside a box (run by the harness's node binary as `node relay.mjs <spec> <payload argv…>`).
 * The box has a private network namespace; this process is its only way out and in:
 *
 * - `listen`: 127.0.0.1:<tcp> (and [::1] when available) → a Unix socket bound into the box: the egress
 *   proxy, or another box's app (forwards);
 * - `ingress`: connections to the app — on a Unix socket it creates (for other boxes) and on a listening
 *   TCP socket the harness passes over the IPC channel (for the browser on the host) — go to the app on
 *   127.0.0.1:<port> (or [::1]:<port>) inside the box.
 *
 * It runs the payload as soon as the outgoing routes listen (the ingress is set up meanwhile). Without
 * `keep` it exits with the payload's status (a bash command); with `keep`
 * it writes `exit <code>` to the status descriptor and goes on relaying until the box is stopped (init.sh
 * may exit after starting the app in the background). Plain JavaScript with node built-ins only: it runs
 * inside the box, where neither tsx nor the project's node_modules may be visible.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';

const spec = JSON.parse(process.argv[2] ?? '{}');
const payload = process.argv.slice(3);

function fail(message) {
  process.stderr.write(`nightshift relay: ${message}\n`);
  process.exit(125);
}

/** Pipes two sockets both ways; either closing or failing ends both. */
function join(a, b) {
  const cut = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', cut);
  b.on('error', cut);
  a.on('close', cut);
  b.on('close', cut);
  a.pipe(b);
  b.pipe(a);
}

/** Connects to the app's port on IPv4 loopback, then IPv6 loopback. */
function connectApp(client, port) {
  client.pause();
  const tryHost = (hosts) => {
    const [host, ...rest] = hosts;
    const upstream = net.connect({ host, port, allowHalfOpen: true });
    const onError = () => {
      upstream.destroy();
      if (rest.length) tryHost(rest);
      else client.destroy();
    };
    upstream.once('error', onError);
    upstream.once('connect', () => {
      upstream.off('error', onError);
      join(client, upstream);
      client.resume();
    });
  };
  client.on('error', () => client.destroy());
  tryHost(['127.0.0.1', '::1']);
}

function listenTcp(port, onConnection) {
  const listenOn = (host, required) =>
    new Promise((resolve, reject) => {
      const server = net.createServer({ allowHalfOpen: true }, onConnection);
      server.once('error', (error) => (required ? reject(error) : resolve()));
      server.listen({ host, port, exclusive: true }, () => resolve());
    });
  return listenOn('127.0.0.1', true).then(() => listenOn('::1', false));
}

function listenUnix(socketPath, onConnection) {
  fs.rmSync(socketPath, { force: true });
  return new Promise((resolve, reject) => {
    const server = net.createServer({ allowHalfOpen: true }, onConnection);
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
}

function writeStatus(line) {
  if (spec.statusFd === undefined) return;
  try {
    fs.writeSync(spec.statusFd, `${line}\n`);
  } catch {
    // The harness stopped listening: nothing to tell.
  }
}

/** Accepts the app's connections: on a Unix socket for other boxes, on the harness's TCP listener (IPC). */
async function serveIngress(ingress) {
  if (ingress.unix) await listenUnix(ingress.unix, (client) => connectApp(client, ingress.port));
  if (!process.send) return;
  const received = new Promise((resolve) => {
    process.on('message', (message, handle) => {
      if (message === 'ingress' && handle) {
        handle.on('connection', (client) => connectApp(client, ingress.port));
        resolve();
      }
    });
  });
  process.send('waiting');
  await received;
  process.send('ingress-ok');
  process.disconnect();
}

function runPayload() {
  const child = spawn(payload[0], payload.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('error', (error) => fail(`cannot start ${payload[0]}: ${error.message}`));
  child.on('exit', (code, signal) => {
    const status = code ?? 128 + (os.constants.signals[signal] ?? 0);
    if (!spec.keep) process.exit(status);
    writeStatus(`exit ${status}`);
  });
}

async function main() {
  // Egress and forwards first: the payload may connect at once. The ingress is only needed once the app
  // listens, so the payload starts before it is set up.
  for (const route of spec.listen ?? []) {
    await listenTcp(route.tcp, (client) =>
      join(client, net.connect({ path: route.unix, allowHalfOpen: true })),
    );
  }
  runPayload();
  if (spec.ingress) await serveIngress(spec.ingress);
}

main().catch((error) => fail(error.message));
