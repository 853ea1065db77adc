import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Options of `serveMetrics`. */
export interface MetricsServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Address to bind. Default: `0.0.0.0`. */
  host?: string;
  /** The registry served on `/metrics`. */
  registry: Registry;
  /**
   * Readiness: resolves `null` when ready, or a reason why not (`/readyz` answers 503 with it).
   * Default: always ready.
   */
  ready?: () => Promise<string | null>;
  /** How long `/readyz` waits for `ready` before answering 503 (ms). Default: 2000. */
  readyTimeoutMs?: number;
}

/** A running metrics server. */
export interface MetricsServer {
  readonly url: string;
  readonly port: number;
  /** Stop listening. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Serve `/metrics` (Prometheus text), `/healthz` (the process is up) and `/readyz` (it does its
 * job: `ready()`) on a port of their own, for a process that serves no other HTTP (a scheduler
 * replica, a worker). No credentials: bind it to a private network (compose publishes no port).
 */
export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, ready = async () => null, readyTimeoutMs = 2000 } = options;
  const json = (res: import('node:http').ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`timed out after ${readyTimeoutMs} ms`), readyTimeoutMs);
      });
      void Promise.race([ready().catch((err: unknown) => (err as Error).message ?? String(err)), timeout])
        .then((reason) =>
          reason === null
            ? json(res, 200, { status: 'ready' })
            : json(res, 503, { status: 'unavailable', reason }),
        )
        .finally(() => clearTimeout(timer));
      return;
    }
    if (path === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text))
        .catch((err: unknown) => {
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics: ${(err as Error).message}`);
        });
      return;
    }
    json(res, 404, { error: `no route ${path}; try /metrics, /healthz or /readyz` });
  });
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
