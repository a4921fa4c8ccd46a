/**
 * Finding 4 of issue 12: pages of a hostile app that try to make the evaluator's browser reach another server
 * on this machine (the "victim"), one page per way a page can send a request. The app is a workspace file
 * (`server.js`, started by `init.sh` in the box like any app); the victim counts every TCP connection and UDP
 * datagram it receives on its port, on every local address.
 */
import dgram from 'node:dgram';
import net from 'node:net';

/** One way out, served by the hostile app at `/v/<name>`; `hits` is the victim path it asks for. */
export interface PageVariant {
  name: string;
  /** What the page does (the row of docs/security.md). */
  attempt: string;
}

/** Every variant; the app serves `/v/<name>` for each. */
export const PAGE_VARIANTS: PageVariant[] = [
  { name: 'img', attempt: '`<img>` of another loopback origin' },
  { name: 'fetch-cors', attempt: '`fetch` with CORS (a POST with a JSON body: preflight)' },
  { name: 'fetch-no-cors', attempt: "`fetch(…, { mode: 'no-cors' })`" },
  { name: 'xhr', attempt: 'XMLHttpRequest' },
  { name: 'beacon', attempt: '`navigator.sendBeacon`' },
  { name: 'websocket', attempt: '`new WebSocket(ws://…)`' },
  { name: 'form', attempt: 'a form posted on load' },
  { name: 'popup', attempt: '`window.open` on load' },
  { name: 'refresh', attempt: '`<meta http-equiv=refresh>`' },
  { name: 'iframe', attempt: 'an `<iframe>` of the other origin (its text must not reach the snapshot)' },
  { name: 'redirect', attempt: 'the app answers 302 to the other origin' },
  { name: 'service-worker', attempt: "a service worker (the app's own) fetching the other origin" },
  { name: 'worker', attempt: 'a dedicated worker fetching the other origin' },
  { name: 'prefetch', attempt: '`<link rel=prefetch>` and `<link rel=preconnect>`' },
  { name: 'eventsource', attempt: '`new EventSource`' },
  { name: 'names', attempt: '`localhost`, `[::1]`, `127.0.0.2` and https:// to the same port' },
  { name: 'webrtc', attempt: 'WebRTC (STUN over UDP, TURN over TCP) and WebTransport (QUIC) to the port' },
];

/** The text the victim serves: it must never appear in anything sent to the model. */
export const VICTIM_TEXT = 'VICTIM-PAGE-CONTENT';

/** A server on every local address counting TCP connections and UDP datagrams on one port. */
export interface Victim {
  port: number;
  /** TCP connections accepted. */
  readonly connections: number;
  /** UDP datagrams received (STUN, QUIC). */
  readonly datagrams: number;
  /** The first request line of each connection that sent one. */
  readonly requests: readonly string[];
  reset(): void;
  close(): Promise<void>;
}

/** Starts a victim on a port free for both TCP and UDP on `::` (dual stack: 127.0.0.x, ::1 and the host's). */
export async function startVictim(): Promise<Victim> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await listenVictim();
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

async function listenVictim(): Promise<Victim> {
  const stats = { connections: 0, datagrams: 0, requests: [] as string[] };
  const tcp = net.createServer((socket) => {
    stats.connections++;
    socket.once('data', (chunk) => {
      stats.requests.push(chunk.toString('latin1').split('\r\n')[0] ?? '');
      const body = `<html><body><h1>${VICTIM_TEXT}</h1></body></html>`;
      socket.end(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen({ host: '::', port: 0, ipv6Only: false }, resolve);
  });
  const port = (tcp.address() as net.AddressInfo).port;
  const udp = dgram.createSocket({ type: 'udp6', ipv6Only: false });
  udp.on('message', () => stats.datagrams++);
  try {
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ address: '::', port }, resolve);
    });
  } catch (error) {
    tcp.close();
    throw error;
  }
  return {
    port,
    get connections() {
      return stats.connections;
    },
    get datagrams() {
      return stats.datagrams;
    },
    get requests() {
      return stats.requests;
    },
    reset() {
      stats.connections = 0;
      stats.datagrams = 0;
      stats.requests.length = 0;
    },
    close: async () => {
      udp.close();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** The hostile app (`server.js`, CommonJS): the variant pages, a redirect, workers, and a WebSocket of its own. */
export function hostileAppSource(victimPort: number): string {
  return `
const http = require('http');
const crypto = require('crypto');
const V = 'http://127.0.0.1:${victimPort}';
const hit = (name) => V + '/hit/' + name;
const page = (name, head, body) => '<!doctype html><html><head><title>' + name + '</title>' + head +
  '</head><body><h1>Variant ' + name + '</h1>' + body + '</body></html>';
const script = (code) => '<script>' + code + '</script>';
const pages = {
  img: () => page('img', '', '<img alt="x" src="' + hit('img') + '">'),
  'fetch-cors': () => page('fetch-cors', '', script("fetch('" + hit('fetch-cors') + "', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => {})")),
  'fetch-no-cors': () => page('fetch-no-cors', '', script("fetch('" + hit('fetch-no-cors') + "', { mode: 'no-cors' }).catch(() => {})")),
  xhr: () => page('xhr', '', script("const x = new XMLHttpRequest(); x.open('GET', '" + hit('xhr') + "'); x.send();")),
  beacon: () => page('beacon', '', script("navigator.sendBeacon('" + hit('beacon') + "', 'data')")),
  websocket: () => page('websocket', '', script("new WebSocket('ws://127.0.0.1:${victimPort}/hit/websocket')")),
  form: () => page('form', '', '<form id="f" method="post" action="' + hit('form') + '"><input name="k" value="v"></form>' + script("document.getElementById('f').submit()")),
  popup: () => page('popup', '', script("window.open('" + hit('popup') + "')")),
  refresh: () => page('refresh', '<meta http-equiv="refresh" content="0;url=' + hit('refresh') + '">', ''),
  iframe: () => page('iframe', '', '<iframe title="framed" src="' + hit('iframe') + '"></iframe>'),
  'service-worker': () => page('service-worker', '', script("navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => fetch('/after-sw')).catch((e) => console.log('sw ' + e))")),
  worker: () => page('worker', '', script("new Worker('/worker.js')")),
  prefetch: () => page('prefetch', '<link rel="prefetch" href="' + hit('prefetch') + '"><link rel="preconnect" href="' + V + '">', ''),
  eventsource: () => page('eventsource', '', script("new EventSource('" + hit('eventsource') + "')")),
  names: () => page('names', '', ['http://localhost:${victimPort}/hit/names-localhost', 'http://[::1]:${victimPort}/hit/names-ipv6', 'http://127.0.0.2:${victimPort}/hit/names-alt', 'https://127.0.0.1:${victimPort}/hit/names-https'].map((u) => '<img alt="n" src="' + u + '">').join('')),
  webrtc: () => page('webrtc', '', script("const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${victimPort}' }, { urls: 'turn:127.0.0.1:${victimPort}?transport=tcp', username: 'u', credential: 'c' }] }); pc.createDataChannel('d'); pc.createOffer().then((o) => pc.setLocalDescription(o)); try { new WebTransport('https://127.0.0.1:${victimPort}/hit/webtransport').ready.catch(() => {}); } catch (e) {}")),
  'own-socket': () => page('own-socket', '', '<p id="ws">waiting</p>' + script("const s = new WebSocket('ws://' + location.host + '/ws'); s.onmessage = (m) => { document.getElementById('ws').textContent = 'socket says ' + m.data; };")),
};
const js = {
  '/sw.js': "self.addEventListener('install', (e) => { e.waitUntil(fetch('" + hit('service-worker') + "').catch(() => {})); self.skipWaiting(); });",
  '/worker.js': "fetch('" + hit('worker') + "').catch(() => {});",
};
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://app');
  if (url.pathname === '/v/redirect') { res.writeHead(302, { location: hit('redirect') }); return res.end(); }
  if (url.pathname === '/v/download') {
    // 64 MiB as an attachment: accepted, the browser would write it to the host's disk.
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="big.bin"' });
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    const more = () => { while (sent < 64) { sent++; if (!res.write(chunk)) return res.once('drain', more); } res.end(); };
    return more();
  }
  const name = url.pathname.startsWith('/v/') ? url.pathname.slice(3) : '';
  if (pages[name]) { res.setHeader('content-type', 'text/html'); return res.end(pages[name]()); }
  if (js[url.pathname]) { res.setHeader('content-type', 'text/javascript'); return res.end(js[url.pathname]); }
  res.setHeader('content-type', 'text/html');
  res.end(page('home', '', '<p>hostile app</p>'));
});
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  const text = Buffer.from('hello from the app');
  socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  socket.on('error', () => {});
});
server.listen(Number(process.env.PORT), '127.0.0.1');
`;
}
