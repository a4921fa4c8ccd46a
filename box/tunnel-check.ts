/**
 * The server name (SNI) a TLS client asks for in its ClientHello, read from the first bytes of a CONNECT tunnel
 * without decrypting anything: the egress proxy compares it with the host the tunnel was allowed for, so a tunnel
 * to an allowed name on a shared server (a CDN) cannot ask that server for another site (virtual-host hopping).
 */
import type { Duplex } from 'node:stream';

/** What the first bytes of a tunnel say. */
export type TunnelOpening =
  /** Not enough bytes yet for the whole ClientHello. */
  | { kind: 'incomplete' }
  /** Not a TLS handshake (plain text, or something else). */
  | { kind: 'not_tls' }
  /** A ClientHello; `serverName` is its SNI host name (lower case, no trailing dot), or null without one. */
  | { kind: 'client_hello'; serverName: string | null };

/** Largest ClientHello read (TLS allows 2^24; real ones, post-quantum key shares included, stay under 8 KiB). */
export const MAX_CLIENT_HELLO_BYTES = 64 * 1024;

const HANDSHAKE_RECORD = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;
const HOST_NAME = 0x00;

/** Reads the ClientHello's SNI from the tunnel's first bytes (which may hold one or several TLS records). */
export function readTunnelOpening(bytes: Buffer): TunnelOpening {
  if (bytes.length === 0) return { kind: 'incomplete' };
  if (bytes[0] !== HANDSHAKE_RECORD) return { kind: 'not_tls' };
  const handshake = handshakeBytes(bytes);
  if (handshake === 'not_tls') return { kind: 'not_tls' };
  if (handshake === 'incomplete') return { kind: 'incomplete' };
  if (handshake[0] !== CLIENT_HELLO) return { kind: 'not_tls' };
  const length = handshake.readUIntBE(1, 3);
  if (handshake.length < 4 + length) return { kind: 'incomplete' };
  const serverName = serverNameOf(handshake.subarray(4, 4 + length));
  return serverName === 'malformed' ? { kind: 'not_tls' } : { kind: 'client_hello', serverName };
}

/** The handshake bytes carried by the leading handshake records, once its header says how many there are. */
function handshakeBytes(bytes: Buffer): Buffer | 'incomplete' | 'not_tls' {
  const fragments: Buffer[] = [];
  let collected = 0;
  let offset = 0;
  for (;;) {
    if (offset + 5 > bytes.length) return 'incomplete';
    if (bytes[offset] !== HANDSHAKE_RECORD || bytes[offset + 1] !== 0x03) return 'not_tls';
    const length = bytes.readUInt16BE(offset + 3);
    if (offset + 5 + length > bytes.length) return 'incomplete';
    fragments.push(bytes.subarray(offset + 5, offset + 5 + length));
    collected += length;
    offset += 5 + length;
    if (collected >= 4) {
      const joined = Buffer.concat(fragments);
      if (joined.length >= 4 + joined.readUIntBE(1, 3)) return joined;
    }
  }
}

/** The SNI host name of a ClientHello body, null without the extension, 'malformed' when lengths do not add up. */
function serverNameOf(body: Buffer): string | null | 'malformed' {
  // client_version (2), random (32), then session id, cipher suites and compression methods, each length-prefixed.
  let at = 34;
  const skip = (lengthBytes: number): boolean => {
    if (at + lengthBytes > body.length) return false;
    at += lengthBytes + body.readUIntBE(at, lengthBytes);
    return at <= body.length;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return 'malformed';
  if (at === body.length) return null;
  if (at + 2 > body.length) return 'malformed';
  const end = at + 2 + body.readUInt16BE(at);
  if (end > body.length) return 'malformed';
  at += 2;
  while (at + 4 <= end) {
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    const data = body.subarray(at + 4, at + 4 + length);
    if (data.length !== length) return 'malformed';
    if (type === SERVER_NAME_EXTENSION) return hostNameOf(data);
    at += 4 + length;
  }
  return null;
}

function hostNameOf(extension: Buffer): string | null | 'malformed' {
  if (extension.length < 2) return 'malformed';
  let at = 2;
  while (at + 3 <= extension.length) {
    const type = extension[at];
    const length = extension.readUInt16BE(at + 1);
    const name = extension.subarray(at + 3, at + 3 + length);
    if (name.length !== length) return 'malformed';
    if (type === HOST_NAME) return name.toString('latin1').toLowerCase().replace(/\.$/, '');
    at += 3 + length;
  }
  return null;
}

/**
 * Waits for the tunnel's first bytes and lets them through only when they open a TLS handshake asking for `host`
 * (SNI): an allowed name on a shared server cannot be used to reach another site of that server. Resolves to the
 * bytes read (to be sent on), or why the tunnel is cut.
 */
export function checkedOpening(
  client: Duplex,
  head: Buffer,
  host: string,
  timeoutMs: number,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    let bytes = head;
    const finish = (result: { ok: true; bytes: Buffer } | { ok: false; reason: string }) => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('close', onClose);
      client.pause();
      resolve(result);
    };
    const decide = () => {
      const opening = readTunnelOpening(bytes);
      if (opening.kind === 'client_hello' && opening.serverName === host) finish({ ok: true, bytes });
      else if (opening.kind === 'client_hello')
        finish({ ok: false, reason: tunnelNameReason(host, opening.serverName) });
      else if (opening.kind === 'not_tls')
        finish({
          ok: false,
          reason: `a tunnel to ${host} carries TLS only (send plain http:// requests to the proxy in absolute form)`,
        });
      else if (bytes.length > MAX_CLIENT_HELLO_BYTES)
        finish({ ok: false, reason: `the TLS handshake to ${host} is larger than the proxy reads` });
    };
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      decide();
    };
    const onClose = () =>
      finish({ ok: false, reason: `the tunnel to ${host} closed before its TLS handshake` });
    const timer = setTimeout(
      () => finish({ ok: false, reason: `no TLS handshake to ${host} within ${timeoutMs} ms` }),
      timeoutMs,
    );
    client.on('data', onData);
    client.once('close', onClose);
    if (bytes.length) decide();
  });
}

function tunnelNameReason(host: string, serverName: string | null): string {
  return serverName === null
    ? `the TLS handshake through the tunnel to ${host} names no server (SNI), so it cannot be checked against ${host}`
    : `the TLS handshake through the tunnel to ${host} asks for "${serverName}" (virtual-host hopping); a tunnel reaches only the host it was allowed for`;
}
