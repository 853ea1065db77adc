import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { FinishedEventsReader } from '../../src/scheduler/outcomes/finished-events.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';

// A library never prints "[ioredis] Unhandled error event": each of its Redis clients has an 'error'
// listener (ioredis prints an error emitted with none to the console). A replica and a worker runtime
// whose Redis becomes unreachable (a proxy in front of the test Redis refuses connections) and comes
// back: what their clients emit goes to their loggers, never to the console.

/** A TCP proxy to the test Redis that can refuse every connection (`cut`) and accept them again. */
class RedisProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #port = 0;
  #listening = false;

  constructor() {
    // the test Redis's host and port as ioredis reads REDIS_URL (its default port when none is given)
    const { host = '127.0.0.1', port } = new Redis(REDIS_URL, { lazyConnect: true }).options;
    this.#server = createServer((client) => {
      const upstream = createConnection({ host, port: port as number });
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.#sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.#port}`;
  }

  /** Accept connections (on the port of the first call each time). */
  listen(): Promise<void> {
    if (this.#listening) return Promise.resolve();
    this.#listening = true;
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#port = (this.#server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  /** Close every connection and refuse new ones. */
  cut(): Promise<void> {
    if (!this.#listening) return Promise.resolve();
    this.#listening = false;
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** A logger that keeps the messages of its warnings. */
function recordingLogger(warnings: string[]) {
  return pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
}

describe("bullbeat's Redis clients", () => {
  const env = testEnv('error-events');
  let manager: SchedulerManager | undefined;
  let worker: WorkerHandle | undefined;
  const proxy = new RedisProxy();
  let ran = 0;
  afterAll(() => env.cleanup());
  afterEach(async () => {
    vi.restoreAllMocks();
    await proxy.listen();
    await worker?.close({ graceMs: 1000 }).catch(() => undefined);
    await manager?.stop().catch(() => undefined);
    await manager?.close().catch(() => undefined);
    await proxy.cut();
  }, 120_000); // (after a failure, BullMQ's connections may wait up to 20 s between tries)

  it('a replica and a worker runtime whose Redis refuses connections print no unhandled error event', async () => {
    await proxy.listen();
    const warnings: string[] = [];
    const logger = recordingLogger(warnings);
    manager = new SchedulerManager({
      prefix: env.prefix,
      defaultQueue: env.queue,
      connection: proxy.url,
      logger,
    });
    manager.every(1, { id: 'beat' })(async function beat() {
      ran++;
    });
    await manager.start();
    worker = await createWorker(manager, { logger });
    await worker.ready();
    // every client of the replica (its fire loop, alerts, foreign outcomes, the wake subscriber) and of
    // the worker runtime is connected once a run has been recorded
    await waitUntil(async () => ran >= 1 && (await manager?.history('beat'))?.length, 20_000, {
      what: 'a run recorded',
    });
    const printed = vi.spyOn(console, 'error');
    const unhandled = () =>
      printed.mock.calls.map((c) => c.join(' ')).filter((l) => /Unhandled error event/.test(l));
    const from = warnings.length;
    await proxy.cut();
    // each client retries its connection and is refused: an 'error' event on it, which each client's
    // owner logs (or, on a client with no listener, ioredis prints)
    const owners = [
      'bullbeat: redis error', // the replica's client and its subscriber
      'bullbeat: redis error (foreign outcomes)',
      'redis connection error (worker runtime)',
    ];
    let silent = owners;
    await waitUntil(() => {
      const logged = warnings.slice(from).map((w) => (JSON.parse(w) as { msg: string }).msg);
      silent = owners.filter((o) => !logged.includes(o));
      return unhandled().length > 0 || silent.length === 0;
    }, 20_000).catch(() => expect.fail(`no refusal logged by ${silent.join(', ')}`));
    expect(unhandled()).toEqual([]);
    // and Redis back, the replica fires and the worker runs again
    await proxy.listen();
    const before = ran;
    await waitUntil(() => ran > before, 30_000, { what: 'a run after Redis came back' });
  });

  it("foreign outcomes' reader of a queue's events: its connection's errors go to its onError; it closes while Redis is down", async () => {
    await proxy.listen();
    const errors: unknown[] = [];
    const client = new Redis(proxy.url, { maxRetriesPerRequest: null });
    const reader = new FinishedEventsReader(
      client,
      { events: `bull:${env.queue}:events`, jobBase: `bull:${env.queue}:` },
      env.queue,
      0,
      () => undefined,
      (err) => errors.push(err),
    );
    await reader.start();
    const printed = vi.spyOn(console, 'error');
    await proxy.cut();
    await waitUntil(() => errors.some((e) => /ECONNREFUSED/.test(String(e))), 20_000, {
      what: 'a refused reconnection',
    });
    // closed while its connection is down: its read waiting for the connection is not waited for
    await reader.close();
    expect(printed.mock.calls.filter((c) => /Unhandled error event/.test(c.join(' ')))).toEqual([]);
  });
});
