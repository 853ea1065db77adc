import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';

import { waitUntil } from '../wait-until.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function redisServer(port: number, dir: string): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--appendonly', 'yes', '--dir', dir, '--save', ''], {
    stdio: 'ignore',
  });
}

async function ping(port: number): Promise<void> {
  await waitUntil(
    async () => {
      const c = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      c.on('error', () => undefined);
      try {
        await c.connect();
        return (await c.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        c.disconnect();
      }
    },
    10_000,
    { stepMs: 50 },
  );
}

describe('Redis outage', () => {
  let server: ChildProcess | undefined;
  let dir = '';
  let manager: SchedulerManager | undefined;
  afterEach(async () => {
    await manager?.stop().catch(() => undefined);
    server?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a restart of Redis (AOF) loses no schedule; the scheduler reconnects and fires each occurrence once', async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'bullbeat-redis-'));
    server = redisServer(port, dir);
    await ping(port);
    manager = new SchedulerManager({
      prefix: 'outage',
      defaultQueue: 'outage',
      connection: `redis://127.0.0.1:${port}`,
      logger: pino({ level: 'silent' }),
      backpressure: false, // it counts every occurrence enqueued, with no consumer
    });
    manager.every(0.2)(async function code() {});
    const runtime = manager.schedule({ name: 'remote' }, new IntervalTrigger(0.2), { id: 'runtime' });
    const fired: FiredEvent[] = [];
    manager.on('fired', (e) => fired.push(e));
    await manager.start();
    await runtime.saved;
    await waitUntil(() => fired.length >= 6);

    const old = server;
    const down = new Promise((r) => old.once('exit', r));
    old.kill('SIGTERM'); // a clean shutdown: Redis writes its AOF out
    await down;
    const before = fired.length;
    await new Promise((r) => setTimeout(r, 700)); // due times pass while Redis is down
    server = redisServer(port, dir);
    await ping(port);
    await waitUntil(() => fired.filter((e) => e.scheduleId === 'runtime').length >= before / 2 + 5, 20_000);
    await waitUntil(() => fired.filter((e) => e.scheduleId === 'code').length >= before / 2 + 5, 20_000);

    const ids = (await manager.list()).map((j) => j.id).sort();
    expect(ids).toEqual(['code', 'runtime']);
    for (const id of ids) {
      const ats = fired.filter((e) => e.scheduleId === id).map((e) => e.fireAt);
      expect(new Set(ats).size).toBe(ats.length); // none twice
      const sorted = [...ats].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBe(200); // none lost
    }
  });
});
