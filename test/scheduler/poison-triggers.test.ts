import { afterEach, describe, expect, it } from 'vitest';
import type { ErroredEvent, FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { everyMs, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/** A trigger on a `ms` grid whose first answer is fine and whose later answers are `bad(lastFire)`. */
function turnsBad(ms: number, bad: (lastFire: number) => number): Trigger {
  return {
    nextFire(lastFire: number | null, now: number): number {
      if (lastFire === null) return now - (now % ms) + ms;
      return bad(lastFire);
    },
  };
}

const HEALTHY = ['h1', 'h2', 'h3', 'h4', 'h5'];

/**
 * Poison triggers, on manual time (the fire loop's clock and Redis's, see manual-time.ts): the periods
 * a test waits through for a schedule to error or its neighbours to fire are advanced through.
 */
describe('poison triggers', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  /** A manager of this test's, on manual time (Redis's clock stopped at its reading now). */
  async function manager(): Promise<ReturnType<typeof env.manager>> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    const m = env.manager();
    time.attach(m);
    return m;
  }

  it('a custom trigger whose nextFire throws is errored, and the 5 healthy schedules of its claim batch keep firing', async () => {
    env = testEnv('poison-throw');
    const m = await manager();
    for (const name of HEALTHY) m.schedule(async () => {}, everyMs(100), { name });
    class ExplodingTrigger implements Trigger {
      nextFire(lastFire: number | null, now: number): number {
        if (lastFire === null) return now - (now % 100) + 100;
        throw new Error('boom: the trigger broke');
      }
    }
    m.schedule(async () => {}, new ExplodingTrigger(), { name: 'bad' });
    const fired: FiredEvent[] = [];
    const errored: ErroredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.on('errored', (e) => errored.push(e));
    await m.start();
    const count = (id: string) => fired.filter((e) => e.scheduleId === id).length;
    await time!.advanceUntil(() => HEALTHY.every((id) => count(id) >= 6), 5000);
    await time!.advanceUntil(() => errored.length >= 1, 5000);
    await time!.stop(m);
    expect(errored[0]).toMatchObject({ scheduleId: 'bad' });
    expect(errored[0]?.reason).toContain('ExplodingTrigger');
    expect(errored[0]?.reason).toContain('boom: the trigger broke');
    const bad = await m.get('bad');
    expect(bad?.status).toBe(JobStatus.ERRORED);
    expect(bad?.error?.reason).toContain('boom: the trigger broke');
    expect(bad?.nextRunTime).toBeNull();
    expect(count('bad')).toBe(0); // its claim could not be planned: nothing of it was enqueued
    expect((await m.stats()).jobsErrored).toBe(1);
    expect(internalsOf(m).loopStats?.errored).toBe(1);
  });

  it.each([
    ['NaN', () => Number.NaN, 'NaN'],
    ['a non-integer', (last: number) => last + 100.5, '.5'],
    ['a time before the last one', (last: number) => last - 100, 'after'],
    ['Infinity', () => Number.POSITIVE_INFINITY, 'Infinity'],
    ['a time past year 9999', (last: number) => last + 1e16, 'out of range'],
  ])(
    'a trigger that returns %s is errored (not completed) and its neighbour keeps firing',
    async (_what, bad, words) => {
      env = testEnv('poison-value');
      const m = await manager();
      m.schedule(async () => {}, everyMs(100), { name: 'healthy' });
      m.schedule(async () => {}, turnsBad(100, bad), { name: 'bad' });
      const fired: FiredEvent[] = [];
      m.on('fired', (e) => fired.push(e));
      await m.start();
      await time!.advanceUntil(async () => (await m.get('bad'))?.status !== JobStatus.ACTIVE, 5000);
      await time!.advanceUntil(() => fired.filter((e) => e.scheduleId === 'healthy').length >= 5, 5000);
      await time!.stop(m);
      const job = await m.get('bad');
      expect(job?.status).toBe(JobStatus.ERRORED);
      expect(job?.error?.reason).toContain(words);
      expect(job?.error?.reason).toMatch(/nextFire/);
      expect(job?.toJSON().error?.reason).toBe(job?.error?.reason);
    },
  );

  it('a trigger whose first fire time is invalid is errored at definition, not stored as completed', async () => {
    env = testEnv('poison-first');
    const m = env.manager();
    m.schedule(async () => {}, { nextFire: () => Number.NaN }, { name: 'never' });
    await m.start();
    const job = await m.get('never');
    expect(job?.status).toBe(JobStatus.ERRORED);
    expect(job?.error?.reason).toContain('NaN');
    await m.stop();
  });

  it('re-defining an errored schedule clears the error and re-plans it from now; remove clears it too', async () => {
    env = testEnv('poison-clear');
    const m = await manager();
    m.schedule(
      async () => {},
      turnsBad(100, () => Number.NaN),
      { name: 'fixme' },
    );
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await time!.advanceUntil(async () => (await m.get('fixme'))?.status === JobStatus.ERRORED, 5000);
    const fixed = m.schedule(async () => {}, everyMs(100), { name: 'fixme' });
    await fixed.saved;
    const job = await m.get('fixme');
    expect(job?.status).toBe(JobStatus.ACTIVE);
    expect(job?.error).toBeNull();
    const before = fired.length;
    await time!.advanceUntil(() => fired.length >= before + 3, 5000);
    expect((await m.stats()).jobsErrored).toBe(0);

    m.schedule(
      async () => {},
      turnsBad(100, () => Number.NaN),
      { name: 'gone' },
    );
    await time!.advanceUntil(async () => (await m.get('gone'))?.status === JobStatus.ERRORED, 5000);
    expect(await m.remove('gone')).toBe(true);
    expect(await env.redis.hexists(`{${env.prefix}}:bb:errors`, 'gone')).toBe(0);
    await time!.stop(m);
  });

  it('resume() retries an errored schedule: cleared and planned from now, and it fires again', async () => {
    env = testEnv('poison-resume');
    const m = await manager();
    let broken = true;
    m.schedule(
      async () => {},
      turnsBad(100, (last) => (broken ? Number.NaN : last + 100)),
      { name: 'flaky' },
    );
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await time!.advanceUntil(async () => (await m.get('flaky'))?.status === JobStatus.ERRORED, 5000);
    broken = false;
    expect(await m.resume('flaky')).toBe(true);
    expect((await m.get('flaky'))?.error).toBeNull();
    const before = fired.length;
    await time!.advanceUntil(() => fired.length >= before + 3, 5000);
    expect((await m.get('flaky'))?.status).toBe(JobStatus.ACTIVE);
    await time!.stop(m);
  });
});
