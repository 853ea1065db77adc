import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Parsed JSON body (undefined when not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the bodies it expects
  json: any;
  /** The order it came in (0, 1, ...), across downs and ups. */
  seq: number;
}

/**
 * A real HTTP receiver on 127.0.0.1 (node:http), standing in for a webhook, Slack, PagerDuty or a
 * heartbeat watchdog. `down()` closes it (connections are refused), `up()` listens on the same port
 * again; `failWith(status)` answers every request with that status until `failWith(undefined)`.
 */
export async function startReceiver(): Promise<{
  url: string;
  port: number;
  got: Received[];
  failWith(status: number | undefined): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}> {
  const got: Received[] = [];
  let failing: number | undefined;
  let server: Server;
  let seq = 0;
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (failing !== undefined) {
            res.writeHead(failing).end();
            return;
          }
          let json: unknown;
          try {
            json = body ? JSON.parse(body) : undefined;
          } catch {
            json = undefined;
          }
          got.push({
            path: req.url ?? '',
            method: req.method ?? '',
            headers: req.headers,
            body,
            json,
            seq: seq++,
          });
          res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"success"}');
        });
      });
      s.keepAliveTimeout = 100;
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve(s));
    });
  server = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    got,
    failWith(status) {
      failing = status;
    },
    down: close,
    async up() {
      server = await listen(port);
    },
    close,
  };
}
