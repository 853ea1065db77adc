// A dashboard with another partition count than its deployment recorded would show an empty
// deployment (and write schedules no scheduler reads): startDashboard refuses to start, and a
// dashboard mounted in an app answers every request below sign-in with the error naming both counts.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createDashboard, startDashboard } from '../../dashboard/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { keys } from '../../src/store/keys/keys.js';
import { REDIS_URL } from '../redis-url.js';
import { BEARER, deleteKeys, quietLogger, TOKEN } from './harness.js';

const prefix = `bbdash-partitions-${randomUUID().slice(0, 8)}`;
const managers: SchedulerManager[] = [];

afterEach(async () => {
  await Promise.all(managers.map((m) => m.close()));
  await deleteKeys([`{${prefix}*`]);
});

async function recordOne(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  await redis.set(keys(prefix).partitionCount, '1');
  redis.disconnect();
}

function manager(): SchedulerManager {
  const m = new SchedulerManager({ prefix, role: 'client', partitions: 4, logger: quietLogger() });
  managers.push(m);
  return m;
}

describe('the partition count of a dashboard', () => {
  it('startDashboard refuses to start with a ConfigError naming both counts', async () => {
    await recordOne();
    const err = (await startDashboard({ token: TOKEN, env: {}, port: 0, scheduler: manager() }).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.setting).toBe('BULLBEAT_PARTITIONS');
    expect(err.message).toMatch(/\b1 partition/);
  });

  it('a mounted dashboard answers its API with the error, not an empty deployment', async () => {
    await recordOne();
    const app = createDashboard({ token: TOKEN, env: {}, scheduler: manager(), logger: quietLogger() });
    const server = await new Promise<Server>((resolve) => {
      const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/schedules`, { headers: BEARER });
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: string };
      expect(body.error).toContain('BULLBEAT_PARTITIONS');
      expect(body.error).toMatch(/\b1 partition/);
    } finally {
      server.close();
      await app.close();
    }
  });
});
