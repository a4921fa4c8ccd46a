/**
 * The box's network policy, as pure functions: which destinations (host and port) the egress proxy may
 * connect to, and which resolved addresses are acceptable. `none` has no proxy at all; `registries` reaches
 * the package registries plus `allowHosts`; `open` reaches any public destination. Loopback, private,
 * link-local and the host's own addresses are reachable only through an entry listed explicitly in
 * `allowHosts` (a name or address, not a wildcard) — a registry name or a wildcard that resolves there is
 * refused, so DNS cannot point the box at the harness's own services.
 */
import net from 'node:net';
import os from 'node:os';
import { z } from 'zod';

/** `none`: no network; `registries`: package registries and `allowHosts`; `open`: any public destination. */
export const NetworkMode = z.enum(['none', 'registries', 'open']);
export type NetworkMode = z.infer<typeof NetworkMode>;

/** Package registries reachable under `registries` (ports 80 and 443). */
export const REGISTRY_HOSTS = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
  'index.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
] as const;

/**
 * The name by which a box addresses this host's loopback (inside the box, 127.0.0.1 is the box's own and
 * bypasses the proxy). The proxy judges and dials it as 127.0.0.1, so it is reachable only on ports listed
 * explicitly (`127.0.0.1:<port>` in `allowHosts`) — e.g. a local registry mirror.
 */
export const HOST_LOOPBACK_ALIAS = 'host.nightshift.internal';

/** Ports a host entry without a port allows. */
export const DEFAULT_PORTS = [80, 443] as const;

const HOST_LABEL = /^(\*\.)?([a-z0-9_-]+\.)*[a-z0-9_-]+$/i;

/** One parsed `allowHosts` entry. */
export interface HostRule {
  /** Lower-case name or address, without brackets; for a wildcard, the suffix after `*.`. */
  host: string;
  /** Only this port; undefined = 80 and 443. */
  port?: number;
  /** `*.example.com`: any name under example.com (not example.com itself). */
  wildcard: boolean;
}

/** Splits `host`, `host:port`, `[v6]`, `[v6]:port`, `*.suffix[:port]`; undefined when malformed. */
export function parseHostRule(entry: string): HostRule | undefined {
  const text = entry.trim().toLowerCase();
  let host = text;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1] as string;
    portText = bracketed[2];
    if (net.isIPv6(host) === false) return undefined;
  } else if (!net.isIPv6(text)) {
    const colon = text.lastIndexOf(':');
    if (colon !== -1) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
      if (!/^\d+$/.test(portText)) return undefined;
    }
  }
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  if (!net.isIP(host) && !HOST_LABEL.test(host)) return undefined;
  const wildcard = host.startsWith('*.');
  return { host: wildcard ? host.slice(2) : host, ...(port === undefined ? {} : { port }), wildcard };
}

/** One `allowHosts` entry: `host`, `host:port`, `*.suffix`, an IPv4 address or a bracketed IPv6 one. */
export const AllowHost = z
  .string()
  .refine(
    (entry) => parseHostRule(entry) !== undefined,
    'expected host, host:port, *.domain, an IP address or [IPv6]:port',
  );
export type AllowHost = z.infer<typeof AllowHost>;

/** The policy of one box. */
export interface NetworkPolicy {
  mode: NetworkMode;
  /** Extra destinations (see {@link AllowHost}); the only way to reach loopback or private addresses. */
  allowHosts: readonly string[];
  /** An npm registry (mirror) URL as the host reaches it; npm in the box is pointed at it (box/env.ts). */
  npmRegistry?: string;
}

/** An npm registry URL (`sandbox.npmRegistry`): http or https, e.g. verdaccio on `http://127.0.0.1:4873/`. */
export const NpmRegistryUrl = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as "http://127.0.0.1:4873/"' })
  .transform((url) => (url.endsWith('/') ? url : `${url}/`));
export type NpmRegistryUrl = z.infer<typeof NpmRegistryUrl>;

/** The `allowHosts` entry that lets a box reach the registry: its host and (explicit or default) port. */
export function registryAllowHost(registryUrl: string): string {
  const url = new URL(registryUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/** The registry URL as the box must name it: this host's loopback is {@link HOST_LOOPBACK_ALIAS} inside a box. */
export function registryUrlInBox(registryUrl: string): string {
  const url = new URL(registryUrl);
  if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) url.hostname = HOST_LOOPBACK_ALIAS;
  return url.toString();
}

/** No network at all. */
export const NO_NETWORK: NetworkPolicy = { mode: 'none', allowHosts: [] };

/**
 * The policy of one box from a mode, extra hosts and an npm registry (added to the hosts). The mode is normalized once, where the run config is parsed
 * (orchestrator/sandbox-config.ts: the old boolean is accepted there and nowhere else).
 */
export function networkPolicy(
  mode: NetworkMode,
  allowHosts: readonly string[] = [],
  npmRegistry?: string,
): NetworkPolicy {
  if (npmRegistry === undefined || mode === 'none') return { mode, allowHosts };
  // The registry's own host:port goes on the allow list: a loopback mirror is reachable only when named.
  return { mode, allowHosts: [...allowHosts, registryAllowHost(npmRegistry)], npmRegistry };
}

/** A host name as compared: lower case, no trailing dot, no brackets. */
export function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

function ruleMatches(rule: HostRule, host: string, port: number): boolean {
  const portOk =
    rule.port === undefined ? (DEFAULT_PORTS as readonly number[]).includes(port) : rule.port === port;
  if (!portOk) return false;
  return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
}

/** The decision on a destination before any name is resolved. */
export type DestinationDecision =
  | {
      allowed: true;
      /** Listed by name or address (not a wildcard, not a registry default): non-public addresses allowed. */
      explicit: boolean;
    }
  | { allowed: false; reason: string };

/** What the proxy tells the client (and the harness) when a destination is refused by the policy. */
export function notAllowedReason(policy: NetworkPolicy, host: string, port: number): string {
  const target = `${host}:${port}`;
  const entry = net.isIPv6(host)
    ? `[${host}]:${port}`
    : (DEFAULT_PORTS as readonly number[]).includes(port)
      ? host
      : target;
  if (policy.mode === 'none') return `${target} is not allowed: the sandbox's network policy is "none"`;
  return (
    `${target} is not allowed by the sandbox's network policy "${policy.mode}" ` +
    `(package registries${policy.allowHosts.length ? ` and ${policy.allowHosts.join(', ')}` : ''}). ` +
    `To allow it, add "${entry}" to sandbox.allowHosts in nightshift.config.json (or the run's config).`
  );
}

/** Whether the policy lets the box connect to `host:port` (names are checked again once resolved). */
export function checkDestination(policy: NetworkPolicy, hostIn: string, port: number): DestinationDecision {
  const host = normalizeHost(hostIn);
  if (policy.mode === 'none') return { allowed: false, reason: notAllowedReason(policy, host, port) };
  const rules = policy.allowHosts.map(parseHostRule).filter((rule): rule is HostRule => rule !== undefined);
  if (rules.some((rule) => !rule.wildcard && ruleMatches(rule, host, port)))
    return { allowed: true, explicit: true };
  if (policy.mode === 'open' || rules.some((rule) => ruleMatches(rule, host, port))) {
    return { allowed: true, explicit: false };
  }
  const registry = REGISTRY_HOSTS.some((name) => ruleMatches({ host: name, wildcard: false }, host, port));
  return registry
    ? { allowed: true, explicit: false }
    : { allowed: false, reason: notAllowedReason(policy, host, port) };
}

/** Why an address is not public, or undefined when it is. */
export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'this host';

const SPECIAL_RANGES: ReadonlyArray<[string, number, 'ipv4' | 'ipv6', AddressClass]> = [
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'private'],
  ['fc00::', 7, 'ipv6', 'private'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['ff00::', 8, 'ipv6', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
];

/**
 * Classifies resolved addresses. Built once per proxy: the special ranges, plus every address of this
 * host's interfaces (a service bound to 0.0.0.0 answers on them as on loopback). IPv4-mapped IPv6
 * addresses are judged by their IPv4 part (net.BlockList does that).
 */
export class AddressClassifier {
  private readonly lists = new Map<AddressClass, net.BlockList>();

  constructor(hostAddresses: readonly string[] = interfaceAddresses()) {
    for (const [address, prefix, family, kind] of SPECIAL_RANGES)
      this.list(kind).addSubnet(address, prefix, family);
    for (const address of hostAddresses) {
      const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
      this.list('this host').addAddress(address, family);
    }
  }

  private list(kind: AddressClass): net.BlockList {
    let list = this.lists.get(kind);
    if (!list) {
      list = new net.BlockList();
      this.lists.set(kind, list);
    }
    return list;
  }

  /** The class of a non-public address; undefined for a public one. */
  classify(address: string): AddressClass | undefined {
    const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    for (const [kind, list] of this.lists) {
      if (list.check(address, family) || (mapped && list.check(mapped, 'ipv4'))) return kind;
    }
    return undefined;
  }
}

/** Every address assigned to one of this host's interfaces. */
export function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => entry.address.replace(/%.*$/, ''));
}

/** The address to dial, or why none is acceptable. */
export type AddressChoice = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Picks the first acceptable resolved address: any address for an explicitly listed destination, otherwise
 * only public ones.
 */
export function chooseAddress(
  host: string,
  port: number,
  addresses: ReadonlyArray<{ address: string; family: number }>,
  explicit: boolean,
  classifier: AddressClassifier,
): AddressChoice {
  if (addresses.length === 0) return { ok: false, reason: `${host} did not resolve to any address` };
  const refused: string[] = [];
  for (const { address, family } of addresses) {
    const kind = classifier.classify(address);
    if (kind === undefined || explicit) return { ok: true, address, family: family === 6 ? 6 : 4 };
    refused.push(`${address} (${kind})`);
  }
  return {
    ok: false,
    reason:
      `${host}:${port} resolves only to non-public addresses: ${refused.join(', ')}. The sandbox reaches ` +
      `loopback, private and this host's addresses only for a destination listed explicitly in sandbox.allowHosts ` +
      `(e.g. "${net.isIPv6(host) ? `[${host}]` : host}:${port}").`,
  };
}
