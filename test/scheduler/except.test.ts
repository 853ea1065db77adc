import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { agenda, whyDidntItRun } from '../../src/insight/index.js';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { DateTrigger, ExceptTrigger, IntervalTrigger } from '../../src/triggers/index.js';
import { testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

describe('except: the fire loop and previews honour exclusions', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  it('a schedule every 0.5 s except even seconds fires only in odd seconds, and stores the exclusion in its trigger', async () => {
    env = testEnv('except-fire');
    // on manual time (manual-time.ts): the fire loop's clock and Redis's as the manager reads it
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager();
    t.attach(m);
    const job = m.every(0.5, { except: ['*/2 * * * * *'] })(async function oddSeconds() {});
    expect(job.trigger).toBeInstanceOf(ExceptTrigger);
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    const t0 = t.now();
    await t.advanceUntil(() => fired.length >= 6, 20_000, 50);
    await t.stop(m);
    expect(fired.every((e) => Math.floor(e.fireAt / 1000) % 2 === 1)).toBe(true);
    // both halves of each odd second, none of the even ones
    const odd = fired.filter((e) => e.fireAt > t0 + 1000).map((e) => e.fireAt);
    for (let i = 1; i < odd.length; i++)
      expect([500, 1500]).toContain((odd[i] as number) - (odd[i - 1] as number));
    const stored = await m.get('oddSeconds');
    expect(stored?.def.trigger).toEqual({
      type: 'except',
      trigger: { type: 'interval', seconds: 0.5 },
      except: ['*/2 * * * * *'],
    });
  });

  it('an except that leaves nothing is refused at definition, naming except; a bad entry names its index', () => {
    env = testEnv('except-bad');
    const m = env.manager({ role: 'client' });
    const all = () => m.every(60, { except: ['* * * * *'] })(async function never() {});
    expect(all).toThrow(ScheduleOptionsError);
    expect(all).toThrow(/^schedule "never": except: excludes every occurrence/);
    expect(() => m.cron('0 9 * * *', { except: ['2026-02-30'] })(async function bad() {})).toThrow(
      /^schedule "bad": except\[0\]: "2026-02-30" is not a real date/,
    );
    expect(() =>
      m.schedule({ name: 'x' }, new IntervalTrigger(60), {
        except: [{ type: 'cron', expression: '99 * * * *' }],
      }),
    ).toThrow(/^schedule "x": except\[0\]\.expression: cron "99 \* \* \* \*": minute "99"/);
    expect(() => m.schedule({ name: 'y' }, new IntervalTrigger(60), { except: 'weekends' as never })).toThrow(
      /^schedule "y": except: must be an array/,
    );
  });

  it('except on a trigger that already has exclusions replaces them; [] removes them', () => {
    env = testEnv('except-replace');
    const m = env.manager({ role: 'client' });
    const base = new ExceptTrigger(new IntervalTrigger(60), ['2026-12-25']);
    const replaced = m.schedule({ name: 'a' }, base, { except: ['2026-12-31'] });
    expect(replaced.def.trigger).toEqual({
      type: 'except',
      trigger: { type: 'interval', seconds: 60 },
      except: ['2026-12-31'],
    });
    const removed = m.schedule({ name: 'b' }, base, { except: [] });
    expect(removed.def.trigger).toEqual({ type: 'interval', seconds: 60 });
  });

  it('a one-shot whose instant is excluded completes without running', async () => {
    env = testEnv('except-once');
    const m = env.manager({ role: 'client' });
    const job = m.schedule({ name: 'launch' }, new DateTrigger(Date.parse('2099-12-25T10:00:00Z')), {
      except: ['2099-12-25'],
    });
    await job.saved;
    const stored = await m.get('launch');
    expect(stored?.status).toBe('completed');
    expect(stored?.nextRunTime).toBeNull();
  });

  it('the agenda honours exclusions and shows the instants in the zone', async () => {
    env = testEnv('except-agenda');
    const m = env.manager({ role: 'client' });
    await m.cron('0 12 * * *', { timezone: 'Europe/Paris', except: ['* * * * 0,6'] })(
      async function noon() {},
    );
    await m.start();
    const a = await agenda(m, { nextMs: 14 * 86_400_000 });
    expect(a.entries.length).toBeGreaterThanOrEqual(9);
    for (const e of a.entries) {
      expect(e.zone).toBe('Europe/Paris');
      expect(e.local).toMatch(/T12:00:00\+0[12]:00$/);
      const weekday = new Date(e.at).toLocaleDateString('en-US', {
        weekday: 'short',
        timeZone: 'Europe/Paris',
      });
      expect(['Sat', 'Sun']).not.toContain(weekday);
    }
    // why: the occurrence at or before a Sunday evening is Friday's noon, read in the zone
    const sunday = Date.parse('2026-05-03T18:00:00Z');
    const why = await whyDidntItRun(m, 'noon', { at: sunday });
    expect(why.occurrence).toMatchObject({
      planned: Date.parse('2026-05-01T10:00:00Z'),
      zone: 'Europe/Paris',
      local: '2026-05-01T12:00:00+02:00',
    });
  });
});
