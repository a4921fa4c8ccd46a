/**
 * A git smart-HTTP server on loopback for tests: `git http-backend` (git's own CGI) behind a small node HTTP server
 * that requires HTTP basic authentication, so real clones, fetches and pushes with credentials work. Every request
 * is kept (method, path, whether it was authorised, the Authorization header as sent).
 */
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** One request the server answered. */
export interface GitHttpRequest {
  method: string;
  url: string;
  authorised: boolean;
  authorization: string | undefined;
}

/** A running server. */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The repository's URL without credentials: `<origin>/<name>.git`. */
  url: string;
  /** The bare repository on disk. */
  bareDir: string;
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

/** Starts the server for a new bare repository `<root>/<name>.git` (branch `main`, pushes allowed). */
export async function startGitHttpServer(
  root: string,
  name: string,
  credential: { username: string; password: string },
): Promise<GitHttpServer> {
  const bareDir = path.join(root, `${name}.git`);
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bareDir]);
  execFileSync('git', ['--git-dir', bareDir, 'config', 'http.receivepack', 'true']);
  const expected = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
  const requests: GitHttpRequest[] = [];
  const server = http.createServer((request, response) => {
    const authorised = request.headers.authorization === expected;
    requests.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorised,
      authorization: request.headers.authorization,
    });
    if (!authorised) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      response.end('authentication required\n');
      return;
    }
    serveCgi(root, request, response, credential.username);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/${name}.git`,
    bareDir,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `git http-backend` for one request (CGI: environment in, headers and body out). */
function serveCgi(
  root: string,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  user: string,
): void {
  const [pathInfo = '/', query = ''] = (request.url ?? '/').split('?');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method,
    PATH_INFO: decodeURIComponent(pathInfo),
    QUERY_STRING: query,
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_USER: user,
    REMOTE_ADDR: '127.0.0.1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...(request.headers['content-encoding']
      ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] }
      : {}),
    ...(request.headers['git-protocol'] ? { GIT_PROTOCOL: String(request.headers['git-protocol']) } : {}),
  };
  const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  request.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
  });
  cgi.on('close', () => {
    if (!headersDone) response.writeHead(502);
    response.end();
  });
}
