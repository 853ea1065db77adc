// withCommandTimeout: a command on bullbeat's own client settles within commandTimeoutMs whatever Redis
// does: paused (the command sits on a socket no one answers), stopped (it sits in ioredis's offline
// queue, kept without end under `maxRetriesPerRequest: null`). Each test on a private redis-server of
// its own: pausing or stopping the shared one would stall every other test.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisCommandTimeoutError } from '../../src/errors/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { withCommandTimeout } from '../../src/store/connection/command-timeout.js';
import { openRedis, redisTarget } from '../../src/store/connection/redis-target.js';
import { startRedisServer } from '../setup/redis-server.js';

const TIMEOUT_MS = 150;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Server = Awaited<ReturnType<typeof startRedisServer>>;
/** One per test, started side by side before them (each test pauses or stops its own, or drops a client). */
let servers: Promise<Server[]>;
beforeAll(() => {
  servers = Promise.all(Array.from({ length: 4 }, () => startRedisServer()));
});
afterAll(async () => {
  await Promise.all((await servers).map((s) => s.stop()));
});
const server = async (i: number) => (await servers)[i] as Server;

/** Pauses every client of `url` for 2 s (the server is stopped after the tests), through a client of its own. */
async function pause(url: string): Promise<void> {
  const admin = new Redis(url);
  cleanups.push(() => admin.disconnect());
  await admin.client('PAUSE', 2000, 'ALL');
}

/** A client as bullbeat opens its own (`maxRetriesPerRequest: null`), with the deadline or without. */
function client(url: string, timeoutMs: number, extra: { retryStrategy?: () => number } = {}): Redis {
  const c = withCommandTimeout(openRedis({ ...redisTarget(url), ...extra }), timeoutMs);
  c.on('error', () => undefined);
  cleanups.push(() => c.disconnect());
  return c;
}

/** Once `c` is connected: a command sent earlier would wait in the offline queue on its deadline. */
function ready(c: Redis): Promise<unknown> {
  return c.status === 'ready' ? Promise.resolve() : new Promise((resolve) => c.once('ready', resolve));
}

/** How a promise settles within `ms`: its error, 'resolved', or 'pending'. */
async function within(p: Promise<unknown>, ms: number): Promise<unknown> {
  const timer = new Promise((resolve) => setTimeout(() => resolve('pending'), ms));
  return Promise.race([
    p.then(
      () => 'resolved',
      (err: unknown) => err,
    ),
    timer,
  ]);
}

describe('command timeout', () => {
  it('a command to a paused Redis fails with RedisCommandTimeoutError within the deadline; a pipeline too', async () => {
    const { url } = await server(0);
    const c = client(url, TIMEOUT_MS);
    await ready(c);
    await pause(url);
    const t0 = Date.now();
    const err = await within(c.hget('h', 'f'), 1500);
    expect(err).toBeInstanceOf(RedisCommandTimeoutError);
    expect(err).toMatchObject({ command: 'hget', timeoutMs: TIMEOUT_MS, name: 'RedisCommandTimeoutError' });
    expect(Date.now() - t0).toBeLessThan(1500);
    const exec = c.pipeline().get('a').hget('h', 'f').exec();
    const pending = new Promise((resolve) => setTimeout(() => resolve('pending'), 1500));
    const piped = (await Promise.race([exec, pending])) as [unknown, unknown][];
    expect(piped.map(([e]) => e instanceof RedisCommandTimeoutError)).toEqual([true, true]);
  });

  it('a command to a stopped Redis fails within the deadline (without one it waits in the offline queue)', async () => {
    const s = await server(1);
    const c = client(s.url, TIMEOUT_MS);
    const bare = client(s.url, 0);
    await Promise.all([ready(c), ready(bare)]);
    await s.stop();
    const t0 = Date.now();
    // the bare client's command still waits at three times the other's deadline
    const [timed, waiting] = await Promise.all([
      within(c.get('k'), 1500),
      within(bare.get('k'), 3 * TIMEOUT_MS),
    ]);
    expect(timed).toBeInstanceOf(RedisCommandTimeoutError);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(waiting).toBe('pending');
  });

  it('a command that timed out while queued is not sent once the client reconnects', async () => {
    const { url } = await server(2);
    // reconnects 400 ms after losing its connection: its commands wait in the offline queue meanwhile
    const c = client(url, TIMEOUT_MS, { retryStrategy: () => 400 });
    const admin = new Redis(url);
    cleanups.push(() => admin.disconnect());
    await ready(c);
    const id = await c.client('ID');
    const lost = new Promise((resolve) => c.once('close', resolve));
    await admin.client('KILL', 'ID', String(id));
    await lost;
    expect(await within(c.set('late', '1'), 400)).toBeInstanceOf(RedisCommandTimeoutError);
    await new Promise((resolve) => c.once('ready', resolve));
    await c.set('after', '1');
    expect(await admin.get('after')).toBe('1');
    expect(await admin.get('late')).toBeNull();
  });

  it('the manager opens its client with commandTimeoutMs (default 5000; 0 = none; checked)', async () => {
    const { url } = await server(3);
    expect(
      internalsOf(new SchedulerManager({ connection: url, role: 'client' })).options.commandTimeoutMs,
    ).toBe(5000);
    expect(() => new SchedulerManager({ connection: url, commandTimeoutMs: -1 })).toThrow(
      'commandTimeoutMs: must be an integer >= 0, got -1',
    );
    const manager = new SchedulerManager({ connection: url, role: 'client', commandTimeoutMs: TIMEOUT_MS });
    cleanups.push(() => manager.stop());
    await internalsOf(manager).redis.ping();
    await pause(url);
    expect(await within(manager.list(), 1500)).toBeInstanceOf(RedisCommandTimeoutError);
  });
});
