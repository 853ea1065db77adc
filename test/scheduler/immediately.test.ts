import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { keys } from '../../src/store/keys/keys.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { redisNow, testEnv } from './helpers.js';

describe('immediately: fire once at creation, then follow the trigger', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('a runtime schedule fires at once, then at the trigger’s next time', async () => {
    env = testEnv('immediately-runtime');
    const replica = env.manager({ claimAheadMs: 0 });
    const fired: FiredEvent[] = [];
    replica.on('fired', (e) => fired.push(e));
    await replica.start();
    const client = env.manager({ role: 'client' });
    const before = await redisNow(env.redis);
    await client.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'h', immediately: true })
      .saved;
    await waitUntil(() => fired.length >= 1, 10_000);
    expect(fired[0]).toMatchObject({ scheduleId: 'h', kind: 'scheduled' });
    expect(fired[0]!.fireAt).toBeGreaterThanOrEqual(before);
    const job = (await client.get('h'))!;
    expect(job.def.immediately).toBe(true);
    expect(job.nextRunTime).toBe(new IntervalTrigger(3600).nextFire(fired[0]!.fireAt, fired[0]!.fireAt));
    const [record] = await client.history('h');
    expect(record).toMatchObject({ kind: 'scheduled', outcome: 'enqueued', fireAt: fired[0]!.fireAt });
    // an update does not fire it again
    await client.update('h', { attempts: 2 });
    await new Promise((r) => setTimeout(r, 300));
    expect(fired).toHaveLength(1);
  });

  it('a code schedule fires at its first start only, not at every start (nor when restored from orphaned)', async () => {
    env = testEnv('immediately-code');
    const define = () => {
      const m = env.manager({ claimAheadMs: 0 });
      m.schedule(async function nightly() {}, new CronTrigger('0 3 * * *'), { immediately: true });
      return m;
    };
    const first = define();
    const fired: FiredEvent[] = [];
    first.on('fired', (e) => fired.push(e));
    await first.start();
    await waitUntil(() => fired.length >= 1, 10_000);
    await first.stop();
    for (let i = 0; i < 2; i++) {
      const again = define();
      again.on('fired', (e) => fired.push(e));
      await again.start();
      await new Promise((r) => setTimeout(r, 300));
      await again.stop();
    }
    // orphaned by a start without it, then restored by code that defines it again
    const without = env.manager({ claimAheadMs: 0 });
    await without.start();
    await without.stop();
    expect(await env.redis.hget(keys(env.prefix).state, 'nightly')).toMatch(/^o/);
    const restored = define();
    restored.on('fired', (e) => fired.push(e));
    await restored.start();
    await new Promise((r) => setTimeout(r, 300));
    await restored.stop();
    expect(fired.map((e) => e.scheduleId)).toEqual(['nightly']);
    expect(await env.jobIds()).toHaveLength(1);
  });

  it('with a later startAt it first fires at startAt; a bad value is refused naming it', async () => {
    env = testEnv('immediately-start');
    const client = env.manager({ role: 'client' });
    const startAt = (await redisNow(env.redis)) + 3_600_000;
    await client.schedule({ name: 's' }, new CronTrigger('0 0 1 1 *'), {
      id: 's',
      immediately: true,
      startAt,
    }).saved;
    expect(Number(await env.redis.zscore(keys(env.prefix).due, 's'))).toBe(startAt);
    const err = (() => {
      try {
        client.schedule({ name: 'x' }, new IntervalTrigger(60), { immediately: 'yes' as never });
      } catch (e) {
        return e as ScheduleOptionsError;
      }
    })();
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect(err!.field).toBe('immediately');
    expect(await client.get('x')).toBeUndefined();
  });
});
