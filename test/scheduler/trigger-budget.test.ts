import { afterEach, describe, expect, it } from 'vitest';
import type { ErroredEvent, FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { everyMs, redisNow, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/** Burn `ms` of this process's CPU. */
function burn(ms: number): void {
  const until = process.cpuUsage().user + ms * 1000;
  while (process.cpuUsage().user < until) {}
}

/**
 * Every minute of the 30 days from `from` excluded, two cron entries per day (even and odd minutes:
 * spans of one minute), behind 935 dates long past: each step of the walk checks them all.
 */
function thirtyDaysExcluded(from: number): string[] {
  const entries = Array.from({ length: 935 }, (_, i) =>
    new Date(Date.UTC(1990, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
  );
  for (let d = 0; d < 30; d++) {
    const t = new Date(from + d * 86_400_000);
    const day = `${t.getUTCDate()} ${t.getUTCMonth() + 1}`;
    entries.push(`*/2 * ${day} *`, `1-59/2 * ${day} *`);
  }
  return entries;
}

/**
 * The budget is this process's time spent in a trigger (wall and CPU); the fire loops run on manual time
 * (manual-time.ts), so the healthy schedules' periods are advanced through, not slept.
 */
describe('the trigger time budget in the fire loop', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  async function onManualTime(m: ReturnType<typeof env.manager>): Promise<ManualTime> {
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
    time.attach(m);
    return time;
  }

  it('a custom trigger whose nextFire overruns the budget is errored alone, naming the budget', async () => {
    env = testEnv('budget-custom');
    const m = env.manager({ triggerBudgetMs: 20 });
    const t = await onManualTime(m);
    for (const name of ['h1', 'h2', 'h3']) m.schedule(async () => {}, everyMs(100), { name });
    const slow: Trigger = {
      nextFire(lastFire, now) {
        if (lastFire !== null) burn(60);
        const t = lastFire ?? now;
        return t - (t % 100) + 100;
      },
    };
    m.schedule(async () => {}, slow, { name: 'slow' });
    const fired: FiredEvent[] = [];
    const errored: ErroredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.on('errored', (e) => errored.push(e));
    await m.start();
    await t.advanceUntil(() => errored.length >= 1, 15_000, 50);
    const count = (id: string) => fired.filter((e) => e.scheduleId === id).length;
    const before = count('h1');
    await t.advanceUntil(() => count('h1') >= before + 5, 15_000, 50); // the healthy ones keep firing
    await t.stop(m);
    expect(errored.map((e) => e.scheduleId)).toEqual(['slow']);
    expect(errored[0]?.reason).toMatch(/took more than 20 ms \(the trigger time budget, triggerBudgetMs\)/);
    expect((await m.get('slow'))?.status).toBe(JobStatus.ERRORED);
    for (const id of ['h1', 'h2', 'h3']) expect((await m.get(id))?.status).not.toBe(JobStatus.ERRORED);
  });

  it('an except list whose next time cannot be computed within the budget: errored alone, a healthy schedule keeps firing', async () => {
    env = testEnv('budget-except');
    const m = env.manager(); // the default budget
    const t = await onManualTime(m);
    const now = await redisNow(env.redis);
    // defined by a process whose budget is large (an older release, or a changed budget)
    const definer = env.manager({ triggerBudgetMs: 120_000, role: 'client' });
    const bad = definer.schedule({ name: 'bad' }, new IntervalTrigger(60), {
      id: 'bad',
      except: thirtyDaysExcluded(now),
      immediately: true,
    });
    await bad.saved;
    m.schedule(async () => {}, everyMs(100), { name: 'ok' });
    const fired: FiredEvent[] = [];
    const errored: ErroredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.on('errored', (e) => errored.push(e));
    await m.start();
    await t.advanceUntil(() => errored.length >= 1, 30_000, 50);
    const count = () => fired.filter((e) => e.scheduleId === 'ok').length;
    const before = count();
    await t.advanceUntil(() => count() >= before + 5, 15_000, 50);
    await t.stop(m);
    expect(errored.map((e) => e.scheduleId)).toEqual(['bad']);
    expect(errored[0]?.reason).toMatch(/ExceptTrigger: nextFire: .*took more than 50 ms/);
    expect((await m.get('bad'))?.status).toBe(JobStatus.ERRORED);
    expect((await m.get('ok'))?.status).toBe(JobStatus.ACTIVE);
  }, 60_000);
});
