// get() / list() / toJSON() on a schedule with a named calendar: `nextRunTime` is the run as it will
// happen (the calendar's current version applied, an `onExcluded` roll included) and `wakeUpTime` the due
// time the fire loop keeps, the same as schedule:list/show and the dashboard's API and page say.
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { CronTrigger } from '../../src/triggers/index.js';
import { BEARER, startTestDashboard, type TestDashboard } from '../dashboard/harness.js';
import { redisNow } from './helpers.js';

let t: TestDashboard | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

describe('nextRunTime on a calendar', () => {
  it('says the applied run (next, skip), the wake-up apart; a plain schedule has none', async () => {
    t = await startTestDashboard();
    const m = t.scheduler;
    const now = DateTime.fromMillis(await redisNow(internalsOf(m).redis), { zone: 'UTC' });
    // the next 09:00 UTC and the day after are days off: the wake-up is the first, the run the third
    let first = now.set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    if (first <= now.plus({ minutes: 1 })) first = first.plus({ days: 1 });
    const third = first.plus({ days: 2 }).toMillis();
    await m.calendars.define('off', { dates: [first.toISODate()!, first.plus({ days: 1 }).toISODate()!] });
    const target = { queue: t.queue, name: 'report' };
    const cron = () => new CronTrigger('0 9 * * *', { timezone: 'UTC' });
    await m.schedule(target, cron(), { id: 'rolled', calendar: 'off', onExcluded: 'next' }).saved;
    await m.schedule(target, cron(), { id: 'skipped', calendar: 'off', onExcluded: 'skip' }).saved;
    await m.schedule(target, cron(), { id: 'plain' }).saved;

    for (const id of ['rolled', 'skipped']) {
      const job = await m.get(id);
      expect(job, id).toMatchObject({ nextRunTime: third, wakeUpTime: first.toMillis() });
      expect(job?.toJSON(), id).toMatchObject({ nextRunTime: third, wakeUpTime: first.toMillis() });
      // the dashboard's API: the run first, the wake-up beside it
      const view = (await t.api('GET', `/api/schedules/${id}`)).body;
      expect(view.nextFireTimes[0], id).toBe(third);
      expect(view.wakeUpTime, id).toBe(first.toMillis());
    }
    const listed = new Map((await m.list()).map((j) => [j.id, j]));
    expect(listed.get('rolled')).toMatchObject({ nextRunTime: third, wakeUpTime: first.toMillis() });
    const plain = await m.get('plain');
    expect(plain).toMatchObject({ nextRunTime: first.toMillis(), wakeUpTime: first.toMillis() });
    expect(plain?.toJSON()).not.toHaveProperty('wakeUpTime');
    const plainView = (await t.api('GET', '/api/schedules/plain')).body;
    expect(plainView.nextFireTimes[0]).toBe(first.toMillis());
    expect(plainView).not.toHaveProperty('wakeUpTime');

    // the page says it too
    const page = await (await fetch(`${t.url}/schedules/rolled`, { headers: BEARER })).text();
    expect(page).toContain('Wakes up');

    // the calendar changed (its first day off removed): the same read follows it at once
    await m.calendars.define('off', { dates: [first.plus({ days: 1 }).toISODate()!] });
    const after = await m.get('rolled');
    expect(after).toMatchObject({ nextRunTime: first.toMillis(), wakeUpTime: first.toMillis() });
    expect(after?.toJSON()).not.toHaveProperty('wakeUpTime');

    // paused: neither
    await m.pause('rolled');
    expect(await m.get('rolled')).toMatchObject({ nextRunTime: null, wakeUpTime: null });
  }, 60_000);
});
