import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../cli/run-bullbeat.js';
import setup from './redis-server.js';

describe("npm test's Redis (the global setup)", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ['REDIS_URL', 'BULLBEAT_LOCAL_REDIS']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it('with no REDIS_URL and nothing on the local port: a private redis-server on a free port, stopped at the end', async () => {
    delete process.env.REDIS_URL;
    process.env.BULLBEAT_LOCAL_REDIS = `redis://127.0.0.1:${await closedPort()}`;
    const provided: Record<string, unknown> = {};
    const teardown = await setup({
      provide: ((key: string, value: unknown) => {
        provided[key] = value;
      }) as never,
    });
    const url = provided.redisUrl as string;
    expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe(process.env.BULLBEAT_LOCAL_REDIS);
    expect(process.env.REDIS_URL).toBe(url);
    const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    await teardown();
    const after = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    after.on('error', () => undefined);
    await expect(after.connect()).rejects.toThrow();
    after.disconnect();
  });

  it('REDIS_URL set but silent: one line naming it', async () => {
    process.env.REDIS_URL = `redis://127.0.0.1:${await closedPort()}`;
    await expect(setup({ provide: (() => undefined) as never })).rejects.toThrow(
      `npm test: REDIS_URL=${process.env.REDIS_URL} does not answer PING`,
    );
  });
});
