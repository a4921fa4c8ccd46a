import { describe, expect, it } from 'vitest';
import {
  AddressClassifier,
  checkDestination,
  chooseAddress,
  type NetworkPolicy,
  NO_NETWORK,
  networkPolicy,
  parseHostRule,
} from '../../../box/network-policy.js';

const registries = (allowHosts: string[] = []): NetworkPolicy => ({ mode: 'registries', allowHosts });
const classifier = new AddressClassifier(['10.1.2.3', 'fd12::7']);

describe('allowHosts entries', () => {
  it.each([
    ['example.com', { host: 'example.com', wildcard: false }],
    ['Example.COM:8443', { host: 'example.com', port: 8443, wildcard: false }],
    ['*.corp.test', { host: 'corp.test', wildcard: true }],
    ['127.0.0.1:4873', { host: '127.0.0.1', port: 4873, wildcard: false }],
    ['[::1]:4873', { host: '::1', port: 4873, wildcard: false }],
    ['::1', { host: '::1', wildcard: false }],
  ])('%s parses', (entry, rule) => {
    expect(parseHostRule(entry)).toEqual(rule);
  });

  it.each([
    '',
    'http://example.com',
    'example.com:0',
    'example.com:99999',
    'a b',
    '*',
    'host:port',
    '[nothex]:1',
  ])('%j is refused', (entry) => {
    expect(parseHostRule(entry)).toBeUndefined();
  });
});

describe('the policy decides on the destination', () => {
  it('none refuses everything', () => {
    const decision = checkDestination({ mode: 'none', allowHosts: ['example.com'] }, 'example.com', 443);
    expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining('"none"') });
  });

  it('registries: the registries on 80/443, nothing else, and the refusal says how to allow it', () => {
    expect(checkDestination(registries(), 'registry.npmjs.org', 443)).toEqual({
      allowed: true,
      explicit: false,
    });
    expect(checkDestination(registries(), 'REGISTRY.npmjs.org.', 80)).toEqual({
      allowed: true,
      explicit: false,
    });
    expect(checkDestination(registries(), 'files.pythonhosted.org', 443).allowed).toBe(true);
    const otherPort = checkDestination(registries(), 'registry.npmjs.org', 22);
    expect(otherPort).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('"registry.npmjs.org:22"'),
    });
    const other = checkDestination(registries(), 'example.com', 443);
    expect(other).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('add "example.com" to sandbox.allowHosts'),
    });
    expect(checkDestination(registries(), 'evil-registry.npmjs.org', 443).allowed).toBe(false);
  });

  it('registries with allowHosts: names, ports, wildcards (never explicit)', () => {
    const policy = registries(['example.com', 'mirror.test:8080', '*.corp.test']);
    expect(checkDestination(policy, 'example.com', 443)).toEqual({ allowed: true, explicit: true });
    expect(checkDestination(policy, 'example.com', 8080).allowed).toBe(false);
    expect(checkDestination(policy, 'mirror.test', 8080)).toEqual({ allowed: true, explicit: true });
    expect(checkDestination(policy, 'mirror.test', 443).allowed).toBe(false);
    expect(checkDestination(policy, 'a.b.corp.test', 443)).toEqual({ allowed: true, explicit: false });
    expect(checkDestination(policy, 'corp.test', 443).allowed).toBe(false);
  });

  it('open allows any destination, explicit only when listed', () => {
    const open: NetworkPolicy = { mode: 'open', allowHosts: ['127.0.0.1:4873'] };
    expect(checkDestination(open, 'example.com', 22)).toEqual({ allowed: true, explicit: false });
    expect(checkDestination(open, '127.0.0.1', 4873)).toEqual({ allowed: true, explicit: true });
    expect(checkDestination(open, '127.0.0.1', 6379)).toEqual({ allowed: true, explicit: false });
  });

  it('builds a box policy from a mode and extra hosts (the old boolean is mapped by the run config only)', () => {
    expect(networkPolicy('registries', ['a.test'])).toEqual({ mode: 'registries', allowHosts: ['a.test'] });
    expect(networkPolicy('none')).toEqual(NO_NETWORK);
  });
});

describe('resolved addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.20.30.40', 'private'],
    ['172.16.5.5', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
  ])('%s is %s', (address, kind) => {
    expect(classifier.classify(address)).toBe(kind);
  });

  it('public addresses are public; this host is never', () => {
    expect(classifier.classify('104.16.0.1')).toBeUndefined();
    expect(classifier.classify('2606:4700::1')).toBeUndefined();
    // Listed as this host's own (10.1.2.3 is also private: either way not public).
    expect(classifier.classify('fd12::7')).toBeDefined();
  });

  it('a name resolving to loopback is refused unless the destination is listed explicitly', () => {
    const loopback = [{ address: '127.0.0.1', family: 4 }];
    const refused = chooseAddress('registry.npmjs.org', 443, loopback, false, classifier);
    expect(refused).toMatchObject({ ok: false, reason: expect.stringContaining('127.0.0.1 (loopback)') });
    expect(chooseAddress('localhost', 4873, loopback, true, classifier)).toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    const mixed = [
      { address: '::1', family: 6 },
      { address: '104.16.0.1', family: 4 },
    ];
    expect(chooseAddress('cdn.test', 443, mixed, false, classifier)).toEqual({
      ok: true,
      address: '104.16.0.1',
      family: 4,
    });
    expect(chooseAddress('nothing.test', 443, [], false, classifier).ok).toBe(false);
  });
});
