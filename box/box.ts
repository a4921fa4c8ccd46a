/**
 * The box: how a workspace-controlled process is launched under bubblewrap — a private network namespace,
 * bridged to the outside only by what the harness provides:
 *
 * - egress: a host-side proxy enforcing the network policy (box/egress-proxy.ts) on a Unix socket,
 *   exposed inside the box on 127.0.0.1:{@link EGRESS_PORT} by the relay (box/relay.mjs), with
 *   HTTP_PROXY & co. pointing there;
 * - forwards: 127.0.0.1:<port> inside the box → a Unix socket outside (another box's app);
 * - ingress (app boxes): the app's port, reachable from other boxes through a Unix socket and from the host
 *   through a listening TCP socket the harness hands to the relay (box/app-box.ts).
 *
 * Each box has a directory of its own on the host (under the OS temp dir, hidden from every box by the
 * private /tmp) holding the proxy socket, the ingress directory and an empty directory for read-only
 * placeholders. Everything is undone by `dispose()`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleLogger } from '../core/log.js';
import { isInside } from '../core/paths.js';
import { bubblewrapArgs } from './bubblewrap.js';
import { type EgressProxy, type EgressRefusal, startEgressProxy } from './egress-proxy.js';
import { buildSandboxEnv, proxyEnv, registryEnv } from './env.js';
import type { NetworkPolicy } from './network-policy.js';

const log = moduleLogger('box/box');

/** Where the bridges appear inside every box (on its private /tmp). */
export const BOX_BRIDGE_DIR = '/tmp/.nightshift-box';
/** The egress proxy's port on the box's own loopback. */
export const EGRESS_PORT = 3128;
/** HOME inside a box (on its private /tmp). */
export const BOX_HOME = '/tmp/home';
/** The relay script, run inside the box with the harness's node binary. */
export const RELAY_SCRIPT = fileURLToPath(new URL('./relay.mjs', import.meta.url));

/** A port inside the box forwarded to a Unix socket outside (e.g. a running app box's `socketPath`). */
export interface BoxForward {
  /** The port on 127.0.0.1 inside the box. */
  port: number;
  /** The Unix socket on the host; its directory is bound read-only into the box. */
  socketPath: string;
}

/** Everything that shapes one box. */
export interface BoxRequest {
  /** Real path of the workspace: bound read-write, the working directory. */
  workspace: string;
  bwrapPath: string;
  userNamespace: boolean;
  network: NetworkPolicy;
  forwards?: readonly BoxForward[];
  /** Absolute paths hidden (empty tmpfs or /dev/null). */
  hiddenPaths: readonly string[];
  /** Absolute paths inside the workspace kept read-only, whether they exist yet or not. */
  readOnlyPaths: readonly string[];
  /** Extra environment (secret and harness variables are dropped). */
  env?: Record<string, string>;
  /** Called for each destination the egress proxy refuses. */
  onEgressRefused?: (refusal: EgressRefusal) => void;
  /** App boxes: the app's port inside the box, bridged in (see box/app-box.ts). */
  ingress?: { port: number };
}

/** A box ready to spawn: `file` + `args` (the payload included), its environment and its clean-up. */
export interface BoxLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** True when the relay waits for the ingress TCP listener on the IPC channel (stdio 3), status on fd 4. */
  relayIpc: boolean;
  /** Host path of the app's Unix socket, for forwards from other boxes (app boxes only). */
  ingressSocket?: string;
  /** Destinations the egress proxy refused so far. */
  refusals(): readonly EgressRefusal[];
  /** Closes the proxy, removes the box's directory and the read-only placeholders left on the host. */
  dispose(): Promise<void>;
}

/** The read-only paths split into existing ones (bound over themselves) and missing ones (placeholders). */
export function splitReadOnlyPaths(
  workspace: string,
  paths: readonly string[],
): { existing: string[]; missing: string[]; created: string[] } {
  const existing: string[] = [];
  const missing: string[] = [];
  const created: string[] = [];
  for (const target of paths) {
    if (!isInside(workspace, target) || target === workspace) continue;
    const parts = path.relative(workspace, target).split(path.sep);
    let current = workspace;
    let firstMissing = -1;
    let linked = false;
    for (const [index, part] of parts.entries()) {
      current = path.join(current, part);
      try {
        if (fs.lstatSync(current).isSymbolicLink()) {
          linked = true;
          break;
        }
      } catch {
        firstMissing = index;
        break;
      }
    }
    if (linked) {
      // Bound only when the link stays inside the workspace (bwrap follows it); a dangling or outside link
      // is left alone: the harness reads these paths without following links.
      try {
        const real = fs.realpathSync.native(target);
        if (isInside(workspace, real)) existing.push(real);
      } catch {
        // Dangling.
      }
    } else if (firstMissing === -1) existing.push(target);
    else {
      missing.push(target);
      for (let i = firstMissing; i < parts.length; i++)
        created.push(path.join(workspace, ...parts.slice(0, i + 1)));
    }
  }
  return { existing, missing, created };
}

/** The relay's instructions (see relay.mjs). */
interface RelaySpec {
  listen: Array<{ tcp: number; unix: string }>;
  ingress?: { port: number; unix: string };
  keep?: boolean;
  statusFd?: number;
}

/** Bridges of one box: binds, relay spec, proxy. */
async function bridges(request: BoxRequest, hostDir: string) {
  const binds: Array<{ source: string; dest: string; readOnly: boolean }> = [];
  const relay: RelaySpec = { listen: [] };
  let proxy: EgressProxy | undefined;
  if (request.network.mode !== 'none') {
    const egressDir = path.join(hostDir, 'egress');
    fs.mkdirSync(egressDir);
    proxy = await startEgressProxy({
      socketPath: path.join(egressDir, 'proxy.sock'),
      policy: request.network,
      ...(request.onEgressRefused ? { onRefused: request.onEgressRefused } : {}),
    });
    binds.push({ source: egressDir, dest: `${BOX_BRIDGE_DIR}/egress`, readOnly: true });
    relay.listen.push({ tcp: EGRESS_PORT, unix: `${BOX_BRIDGE_DIR}/egress/proxy.sock` });
  }
  for (const [index, forward] of (request.forwards ?? []).entries()) {
    if (forward.port === EGRESS_PORT || forward.port === request.ingress?.port) {
      throw new Error(
        `forward port ${forward.port} is taken inside the box (egress proxy or the app's port)`,
      );
    }
    const dest = `${BOX_BRIDGE_DIR}/fwd/${index}`;
    binds.push({ source: path.dirname(forward.socketPath), dest, readOnly: true });
    relay.listen.push({ tcp: forward.port, unix: `${dest}/${path.basename(forward.socketPath)}` });
  }
  let ingressSocket: string | undefined;
  if (request.ingress) {
    const ingressDir = path.join(hostDir, 'ingress');
    fs.mkdirSync(ingressDir);
    binds.push({ source: ingressDir, dest: `${BOX_BRIDGE_DIR}/ingress`, readOnly: false });
    relay.ingress = { port: request.ingress.port, unix: `${BOX_BRIDGE_DIR}/ingress/app.sock` };
    relay.keep = true;
    relay.statusFd = 4;
    ingressSocket = path.join(ingressDir, 'app.sock');
  }
  const needed = relay.listen.length > 0 || relay.ingress !== undefined;
  if (needed) binds.push({ source: RELAY_SCRIPT, dest: `${BOX_BRIDGE_DIR}/relay.mjs`, readOnly: true });
  return { binds, relay: needed ? relay : undefined, proxy, ingressSocket };
}

/** `/opt/node` for `/opt/node/bin/node`: the installation directory a binary needs around it. */
export function installPrefix(binary: string): string {
  const dir = path.dirname(binary);
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

/** Prepares a box around `payload` (argv): host directory, proxy, bwrap arguments and environment. */
export async function prepareBox(request: BoxRequest, payload: readonly string[]): Promise<BoxLaunch> {
  const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nightshift-box-'));
  const emptyDir = path.join(hostDir, 'empty');
  fs.mkdirSync(emptyDir);
  let proxy: EgressProxy | undefined;
  const readOnly = splitReadOnlyPaths(request.workspace, request.readOnlyPaths);
  const dispose = async () => {
    await proxy?.close().catch((error) => log.warn({ err: error }, 'closing the egress proxy failed'));
    for (const dir of [...readOnly.created].reverse()) {
      try {
        fs.rmdirSync(dir);
      } catch {
        // Not empty (the harness wrote there meanwhile) or already gone: keep it.
      }
    }
    fs.rmSync(hostDir, { recursive: true, force: true });
  };
  try {
    const bridged = await bridges(request, hostDir);
    proxy = bridged.proxy;
    const nodeBinDir = path.dirname(process.execPath);
    const env = {
      ...buildSandboxEnv({ home: BOX_HOME, tmpdir: '/tmp', extra: request.env, nodeBinDir }),
      ...(proxy ? { ...proxyEnv(EGRESS_PORT), ...registryEnv(request.network, true) } : {}),
    };
    const args = bubblewrapArgs({
      workspace: request.workspace,
      hiddenPaths: request.hiddenPaths,
      readOnlyPaths: readOnly.existing,
      readOnlyPlaceholders: readOnly.missing,
      emptyDir,
      binds: bridged.binds,
      toolPaths: [installPrefix(process.execPath)],
      home: BOX_HOME,
      userNamespace: request.userNamespace,
    });
    const command = bridged.relay
      ? [process.execPath, `${BOX_BRIDGE_DIR}/relay.mjs`, JSON.stringify(bridged.relay), ...payload]
      : [...payload];
    return {
      file: request.bwrapPath,
      args: [...args, ...command],
      env,
      relayIpc: request.ingress !== undefined,
      ...(bridged.ingressSocket ? { ingressSocket: bridged.ingressSocket } : {}),
      refusals: () => proxy?.refusals ?? [],
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
