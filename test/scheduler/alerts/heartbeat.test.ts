import { afterEach, describe, expect, it } from 'vitest';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { testEnv } from '../helpers.js';
import { ManualTime } from '../manual-time.js';
import { startReceiver } from './receiver.js';

// On manual time (manual-time.ts): the replicas' heartbeat timers and Redis's clock as they read it
// (the period a beat is for) move only as the test moves them; the beats' requests are real.
describe("heartbeat (dead man's switch)", () => {
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
    await receiver.close();
  });

  it('one beat per period from any number of replicas; none once every replica is gone; resumes on restart', async () => {
    env = testEnv('alerts-beat');
    receiver = await startReceiver();
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const replicaEnv = {
      ...process.env,
      BULLBEAT_HEARTBEAT_URL: `${receiver.url}/ping`,
      BULLBEAT_HEARTBEAT_EVERY: '1s',
    };
    const replica = () => {
      const m = withManagerEnv(replicaEnv, () => env.manager());
      t.attach(m);
      return m;
    };
    const replicas = [0, 1, 2].map(replica);
    await Promise.all(replicas.map((m) => m.start()));
    await t.advanceUntil(() => receiver.got.length >= 4, 15_000, 50);
    const periods = receiver.got.map((r) => Number(r.headers['x-bullbeat-period']));
    expect(new Set(periods).size).toBe(periods.length); // never two beats in one period
    expect(receiver.got.every((r) => r.method === 'GET' && r.path === '/ping')).toBe(true);

    // a replica's stop waits for a beat under way: none is left in flight once they are all stopped
    for (const m of replicas) await t.stop(m);
    const stopped = receiver.got.length;
    await t.advance(4000); // four periods
    expect(t.clock.pending).toBe(0); // no timer left to beat
    expect(receiver.got.length).toBe(stopped);

    const back = replica();
    await back.start();
    await t.advanceUntil(() => receiver.got.length >= stopped + 2, 15_000, 50);
    const later = receiver.got.slice(stopped).map((r) => Number(r.headers['x-bullbeat-period']));
    expect(Math.min(...later)).toBeGreaterThan(Math.max(...periods));
  }, 60_000);
});
