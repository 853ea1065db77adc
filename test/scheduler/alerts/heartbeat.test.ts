import { afterEach, describe, expect, it } from 'vitest';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { waitUntil } from '../../wait-until.js';
import { testEnv } from '../helpers.js';
import { startReceiver } from './receiver.js';

describe("heartbeat (dead man's switch)", () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterEach(async () => {
    await env.cleanup();
    await receiver.close();
  });

  it('one beat per period from any number of replicas; none once every replica is gone; resumes on restart', async () => {
    env = testEnv('alerts-beat');
    receiver = await startReceiver();
    const replicaEnv = {
      ...process.env,
      BULLBEAT_HEARTBEAT_URL: `${receiver.url}/ping`,
      BULLBEAT_HEARTBEAT_EVERY: '1s',
    };
    const replicas = [0, 1, 2].map(() => withManagerEnv(replicaEnv, () => env.manager()));
    await Promise.all(replicas.map((m) => m.start()));
    await waitUntil(() => receiver.got.length >= 4, 15_000);
    const periods = receiver.got.map((r) => Number(r.headers['x-bullbeat-period']));
    expect(new Set(periods).size).toBe(periods.length); // never two beats in one period
    expect(receiver.got.every((r) => r.method === 'GET' && r.path === '/ping')).toBe(true);

    await Promise.all(replicas.map((m) => m.stop()));
    const atStop = receiver.got.length;
    await new Promise((r) => setTimeout(r, 2500)); // two periods and a half
    expect(receiver.got.length - atStop).toBeLessThanOrEqual(1); // at most one beat already under way
    const stopped = receiver.got.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.got.length).toBe(stopped);

    const back = withManagerEnv(replicaEnv, () => env.manager());
    await back.start();
    await waitUntil(() => receiver.got.length >= stopped + 2, 15_000);
    const later = receiver.got.slice(stopped).map((r) => Number(r.headers['x-bullbeat-period']));
    expect(Math.min(...later)).toBeGreaterThan(Math.max(...periods));
  }, 60_000);
});
