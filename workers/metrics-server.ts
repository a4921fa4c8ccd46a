import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NightshiftError } from '../core/errors.js';
import { moduleLogger } from '../core/log.js';
import type { NightshiftMetrics } from './metrics.js';

const log = moduleLogger('workers/metrics-server');

/** A worker's `/metrics` endpoint. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** The metrics port is taken or the address cannot be bound. */
export class MetricsListenError extends NightshiftError {
  constructor(host: string, port: number, cause: unknown) {
    super(
      'METRICS_LISTEN',
      `The worker's metrics cannot listen on ${host}:${port}: ${(cause as Error).message}`,
      {
        hint: 'Pick another --metrics-port, or stop what is using it.',
        cause,
        exitCode: 2,
      },
    );
  }
}

/**
 * Serves `GET /metrics` (Prometheus text) and nothing else. It holds no secret and changes nothing, so it has no
 * token; it binds loopback unless told otherwise (`--metrics-host 0.0.0.0` in a container network).
 */
export async function startMetricsServer(
  metrics: NightshiftMetrics,
  options: { port: number; host?: string },
): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://worker').pathname;
    if (request.method !== 'GET' || pathname !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        response.end(text);
      },
      (error: unknown) => {
        log.warn({ err: error }, 'metrics could not be collected');
        response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('metrics could not be collected (is Redis reachable?)\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new MetricsListenError(host, options.port, error)));
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`;
  log.info({ url }, 'worker metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
