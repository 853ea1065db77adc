import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { keys } from '../../src/store/keys/keys.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

describe('immediately: fire once at creation, then follow the trigger', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /** Manual time for this test's managers (manual-time.ts): their fire loops and Redis's clock as they read it. */
  async function manualTime(): Promise<ManualTime> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    return time;
  }

  it('a runtime schedule fires at once, then at the trigger’s next time', async () => {
    env = testEnv('immediately-runtime');
    const t = await manualTime();
    const replica = env.manager({ claimAheadMs: 0 });
    t.attach(replica);
    const fired: FiredEvent[] = [];
    replica.on('fired', (e) => fired.push(e));
    await replica.start();
    const client = env.manager({ role: 'client' });
    t.attach(client);
    const before = t.now();
    await client.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'h', immediately: true })
      .saved;
    await t.advanceUntil(() => fired.length >= 1, 10_000);
    expect(fired[0]).toMatchObject({ scheduleId: 'h', kind: 'scheduled' });
    expect(fired[0]!.fireAt).toBeGreaterThanOrEqual(before);
    const job = (await client.get('h'))!;
    expect(job.def.immediately).toBe(true);
    expect(job.nextRunTime).toBe(new IntervalTrigger(3600).nextFire(fired[0]!.fireAt, fired[0]!.fireAt));
    const [record] = await client.history('h');
    expect(record).toMatchObject({ kind: 'scheduled', outcome: 'enqueued', fireAt: fired[0]!.fireAt });
    // an update does not fire it again
    await client.update('h', { attempts: 2 });
    await t.advance(300); // the replica's claims on the way all done
    expect(fired).toHaveLength(1);
  });

  it('a code schedule fires at its first start only, not at every start (nor when restored from orphaned)', async () => {
    env = testEnv('immediately-code');
    const t = await manualTime();
    const define = () => {
      const m = env.manager({ claimAheadMs: 0 });
      t.attach(m);
      m.schedule(async function nightly() {}, new CronTrigger('0 3 * * *'), { immediately: true });
      return m;
    };
    const first = define();
    const fired: FiredEvent[] = [];
    first.on('fired', (e) => fired.push(e));
    await first.start();
    await t.advanceUntil(() => fired.length >= 1, 10_000);
    await t.stop(first);
    for (let i = 0; i < 2; i++) {
      const again = define();
      again.on('fired', (e) => fired.push(e));
      await again.start();
      await t.advance(300); // its claims on the way all done
      await t.stop(again);
    }
    // orphaned by a start without it, then restored by code that defines it again
    const without = env.manager({ claimAheadMs: 0 });
    t.attach(without);
    await without.start();
    await t.stop(without);
    expect(await env.redis.hget(keys(env.prefix).state, 'nightly')).toMatch(/^o/);
    const restored = define();
    restored.on('fired', (e) => fired.push(e));
    await restored.start();
    await t.advance(300);
    await t.stop(restored);
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
