import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, request } from 'node:http';
import { Redis } from 'ioredis';
import pino from 'pino';
import { type DashboardServer, type StartDashboardOptions, startDashboard } from '../../dashboard/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { REDIS_URL } from '../redis-url.js';

export const TOKEN = 'test-token-0123456789';
export const USER = 'admin';
export const PASSWORD = 'correct horse battery staple';
export const BEARER = { authorization: `Bearer ${TOKEN}` };
export const BASIC = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

export interface TestDashboard {
  prefix: string;
  /** A queue name unique to this test. */
  queue: string;
  scheduler: SchedulerManager;
  server: DashboardServer;
  url: string;
  /** fetch with the bearer token and JSON content type; returns status and parsed body. */
  api(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON a route answers
  ): Promise<{ status: number; body: any }>;
  cleanup(): Promise<void>;
}

/** Delete every key of a test: bullbeat's `{prefix}` keys and BullMQ's keys of the test's queues. */
export async function deleteKeys(patterns: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (found.length > 0) await redis.unlink(...found);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

/** A dashboard on a random port with its own Redis prefix and queue; `cleanup()` removes all of it. */
export async function startTestDashboard(
  options: Partial<StartDashboardOptions> & {
    scheduler?: SchedulerManager;
    prefix?: string;
    queue?: string;
  } = {},
): Promise<TestDashboard> {
  const id = randomUUID().slice(0, 8);
  const prefix = options.prefix ?? `bbdash-${id}`;
  const queue = options.queue ?? `bbdash-q-${id}`;
  const scheduler =
    options.scheduler ??
    new SchedulerManager({ prefix, role: 'client', defaultQueue: queue, logger: quietLogger() });
  const server = await startDashboard({
    token: TOKEN,
    user: USER,
    password: PASSWORD,
    cacheMs: 0,
    env: {},
    // every test request comes from 127.0.0.1: wrong credentials on purpose must not lock a test
    // out (the limit's own tests set a small one)
    authFailureLimit: 1000,
    ...options,
    port: 0,
    host: '127.0.0.1',
    scheduler,
  });
  const api: TestDashboard['api'] = async (method, path, body, headers = BEARER) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed };
  };
  return {
    prefix,
    queue,
    scheduler,
    server,
    url: server.url,
    api,
    async cleanup() {
      await server.close();
      await scheduler.close();
      await deleteKeys([`{${prefix}}*`, `bull:${queue}*`, `bull:bbdash-*${id}*`]);
    },
  };
}

/** A pino logger that only prints errors. */
export function quietLogger() {
  return pino({ level: 'error' });
}

/** A pino logger that keeps every line it writes (parsed), for tests that read the log. */
export function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[]; text(): string } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(s: string) {
        raw.push(s);
        lines.push(JSON.parse(s) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines, text: () => raw.join('') };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request through `node:http`, which (unlike fetch) lets a test set any `Host` header and
 * leaves out `Origin` and `Sec-Fetch-*` unless given.
 */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
