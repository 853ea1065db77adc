// Named calendars against a real Redis and real fire loops: stored once, read by name by every
// schedule that uses one, so a change is one write that reaches them all.

import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { CalendarError, ScheduleOptionsError } from '../../src/errors/index.js';
import { agenda, whyDidntItRun } from '../../src/insight/index.js';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { CronTrigger, IntervalTrigger } from '../../src/triggers/index.js';
import { REDIS } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

const NY = 'America/New_York';
let env: ReturnType<typeof testEnv>;
let time: ManualTime | undefined;
afterEach(async () => {
  await time?.stopAll();
  time = undefined;
  await env.cleanup();
});

/**
 * Every command Redis runs while `body` runs, with the client that sent it (MONITOR, on a plain socket:
 * one line per command, `+<time> [<db> <client>] "cmd" "arg" ...`): those that name one of this test's
 * keys, and every command of those clients (a MULTI and EXEC name no key).
 */
async function commandsDuring(prefix: string, body: () => Promise<void>): Promise<string[][]> {
  const all: { args: string[]; source: string }[] = [];
  const socket = connect({ host: REDIS.host, port: REDIS.port });
  let buffered = '';
  let monitoring = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\r\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') monitoring = true;
      const m = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
      if (!m) continue;
      const args = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!.replace(/\\(.)/g, '$1'));
      all.push({ args, source: m[1]! });
    }
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (REDIS.password) socket.write(`AUTH ${REDIS.username ?? 'default'} ${REDIS.password}\r\n`);
  socket.write('MONITOR\r\n');
  await waitUntil(() => monitoring, 5_000);
  await body();
  // an ECHO through the monitored server after the body: every command of the body was seen before it
  const marker = new Redis(REDIS_URL);
  await marker.echo(`${prefix}-done`);
  const isMarker = (c: { args: string[] }) =>
    c.args[0]?.toLowerCase() === 'echo' && c.args[1] === `${prefix}-done`;
  await waitUntil(() => all.some(isMarker));
  await marker.quit();
  socket.destroy();
  const ours = new Set(all.filter((c) => c.args.some((a) => a.includes(prefix))).map((c) => c.source));
  ours.delete(all.find(isMarker)!.source);
  return all.filter((c) => ours.has(c.source)).map((c) => c.args);
}

const WRITES = new Set([
  'hset',
  'hdel',
  'del',
  'unlink',
  'set',
  'zadd',
  'zrem',
  'xadd',
  'hincrby',
  'expire',
  'rename',
]);

describe('a calendar used by 1,000 schedules', () => {
  it('adding a holiday moves all their next fire times at once, with one transaction on the calendar keys only', async () => {
    env = testEnv('cal-1000');
    const m = env.manager({ role: 'client' });
    await m.calendars.define('mkt', { rules: ['weekends'] });
    // an hour of the day twelve hours from now in New York: the hour's 60 instants all come on the same
    // day (at 9:00 they did not when the test ran between 9:00 and 10:00 New York time)
    const hour = (DateTime.now().setZone(NY).hour + 12) % 24;
    const jobs = Array.from({ length: 1000 }, (_, i) =>
      m.schedule(
        { queue: env.queue, name: 'report' },
        new CronTrigger(`${i % 60} ${hour} * * *`, { timezone: NY }),
        {
          id: `s${i}`,
          calendar: 'mkt',
          onExcluded: i % 2 === 0 ? 'next' : 'skip',
        },
      ),
    );
    await Promise.all(jobs.map((j) => j.saved));

    const firstOf = async () => {
      const a = await agenda(m, { nextMs: 10 * 86_400_000, limit: 100_000, perScheduleLimit: 20 });
      const first = new Map<string, number>();
      for (const e of a.entries) if (!first.has(e.scheduleId)) first.set(e.scheduleId, e.at);
      return first;
    };
    const before = await firstOf();
    expect(before.size).toBe(1000);
    const day = DateTime.fromMillis(before.get('s0')!, { zone: NY }).toISODate()!;
    // every schedule's next occurrence is on that business day
    for (const t of before.values()) expect(DateTime.fromMillis(t, { zone: NY }).toISODate()).toBe(day);

    const k = internalsOf(m).keys.partition(0);
    const snapshot = async () =>
      JSON.stringify([
        await env.redis.hgetall(k.schedules),
        await env.redis.zrange(k.due, '0', '-1', 'WITHSCORES'),
        await env.redis.hgetall(k.state),
      ]);
    const stored = await snapshot();
    let defined: Awaited<ReturnType<typeof m.calendars.define>> | undefined;
    const seen = await commandsDuring(env.prefix, async () => {
      defined = await m.calendars.define('mkt', { rules: ['weekends'], dates: [`${day} Test holiday`] });
    });
    expect(defined).toMatchObject({ version: 2, changed: true, previousVersion: 1 });
    const names = seen.map((a) => a[0]!.toLowerCase());
    const writes = seen.filter((a) => WRITES.has(a[0]!.toLowerCase()));
    expect(writes.map((a) => [a[0]!.toLowerCase(), a[1]])).toEqual([
      ['hset', k.calendars],
      ['hset', k.calendarVersions],
      ['xadd', k.calendarAudit('mkt')],
    ]);
    // the three in one transaction
    const multi = names.indexOf('multi');
    expect(names.slice(multi, multi + 5)).toEqual(['multi', 'hset', 'hset', 'xadd', 'exec']);
    expect(names.filter((n) => n === 'exec')).toHaveLength(1);
    expect(await snapshot()).toBe(stored); // no schedule was written

    const after = await firstOf();
    expect(after.size).toBe(1000);
    for (const [id, t] of after) {
      expect(t).toBeGreaterThan(before.get(id)!);
      const d = DateTime.fromMillis(t, { zone: NY });
      expect(d.toISODate()! > day).toBe(true);
      expect(d.weekday).toBeLessThan(6); // Monday-Friday
      expect(d.hour).toBe(hour);
    }

    // why names the calendar and its version for the excluded instant
    const why = await whyDidntItRun(m, 's0', { at: before.get('s0')! });
    expect(why.cause).toBe('calendar');
    expect(why.summary).toBe(
      `excluded by calendar mkt v2: ${day} Test holiday (moved to the next business day)`,
    );
    const history = await m.calendars.history('mkt');
    expect(history.map((h) => [h.op, h.version])).toEqual([
      ['update', 2],
      ['define', 1],
    ]);
    expect(history[0]).toMatchObject({
      before: { dates: [], rules: ['weekends'] },
      after: { dates: [{ date: day, name: 'Test holiday' }], rules: ['weekends'] },
    });
    // the same content again writes nothing
    expect(
      await m.calendars.define('mkt', { rules: ['weekends'], dates: [`${day} Test holiday`] }),
    ).toMatchObject({
      version: 2,
      changed: false,
    });
  }, 120_000);
});

describe('the fire loop reads the current version when it plans', () => {
  it('today excluded: nothing fires; removed: it fires; excluded again: it stops, with no write to the schedule', async () => {
    env = testEnv('cal-fire');
    // on manual time (manual-time.ts): the fire loop's clock and Redis's as the manager reads it
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager();
    t.attach(m);
    const today = new Date(t.now()).toISOString().slice(0, 10);
    await m.calendars.define('ops', { dates: [`${today} Maintenance`] });
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.schedule({ queue: env.queue, name: 'tick' }, new IntervalTrigger(0.25), {
      id: 'tick',
      calendar: 'ops',
    });
    await m.start();
    const claimed = () => internalsOf(m).loopStats?.claimed ?? 0;
    await t.advanceUntil(() => claimed() >= 6, 20_000, 50);
    expect(fired).toHaveLength(0); // each wake-up claimed, excluded by v1

    await m.calendars.define('ops', { dates: ['2000-01-01'] }); // today no longer excluded
    await t.advanceUntil(() => fired.length >= 3, 20_000, 50);

    await m.calendars.define('ops', { dates: [`${today} Maintenance`] }); // v3: excluded again
    const firedAtV3 = fired.length;
    const claimedAtV3 = claimed();
    await t.advanceUntil(() => claimed() >= claimedAtV3 + 6, 20_000, 50);
    // at most the occurrences planned before v3 was written (claimed ahead) still went
    expect(fired.length - firedAtV3).toBeLessThanOrEqual(2);
    const why = await whyDidntItRun(m, 'tick');
    expect(why.cause).toBe('calendar');
    expect(why.summary).toMatch(new RegExp(`^excluded by calendar ops v3: ${today} Maintenance`));
  }, 60_000);
});

describe('bad input is refused naming the field, and changes nothing', () => {
  it('an unknown calendar on a schedule', async () => {
    env = testEnv('cal-unknown');
    const m = env.manager({ role: 'client' });
    const job = m.schedule({ queue: env.queue, name: 'x' }, new CronTrigger('0 9 * * *'), {
      id: 'x',
      calendar: 'nope',
    });
    await expect(job.saved).rejects.toThrow(ScheduleOptionsError);
    await expect(job.saved).rejects.toMatchObject({ field: 'calendar' });
    await expect(job.saved).rejects.toThrow(/unknown calendar "nope"/);
    expect(await env.redis.hexists(internalsOf(m).keys.partition(0).schedules, 'x')).toBe(0);
    expect(() =>
      m.schedule({ queue: env.queue, name: 'y' }, new IntervalTrigger(60), {
        calendar: 'c',
        onExcluded: 'next',
      }),
    ).toThrow(/onExcluded: "next" rolls calendar instants/);
    expect(() =>
      m.schedule({ queue: env.queue, name: 'z' }, new IntervalTrigger(60), { onExcluded: 'next' }),
    ).toThrow(/^schedule "z": onExcluded: needs a calendar/);
  });

  it('an .ics that does not parse, a rule that does not parse, a bad date: nothing written', async () => {
    env = testEnv('cal-bad');
    const m = env.manager({ role: 'client' });
    await m.calendars.define('c', { rules: ['weekends'] });
    const k = internalsOf(m).keys.partition(0);
    const stored = JSON.stringify([
      await env.redis.hgetall(k.calendars),
      await env.redis.xlen(k.calendarAudit('c')),
    ]);
    const refused = async (input: object, field: string) => {
      const err = await m.calendars.define('c', input).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CalendarError);
      expect((err as CalendarError).field).toBe(field);
      return err as CalendarError;
    };
    expect((await refused({ ics: 'this is not a calendar' }, 'ics')).message).toMatch(
      /^calendar "c": ics: does not parse as iCalendar/,
    );
    await refused({ ics: 'BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n' }, 'ics');
    expect((await refused({ rules: ['weekends', 'every other tuesday'] }, 'rules[1]')).message).toMatch(
      /unknown rule "every other tuesday"/,
    );
    await refused({ dates: ['2026-12-25', '2026-02-30 Nope'] }, 'dates[1]');
    await refused({ holidays: [] }, 'holidays');
    await expect(m.calendars.define('bad name!', { rules: [] })).rejects.toMatchObject({ field: 'name' });
    expect(
      JSON.stringify([await env.redis.hgetall(k.calendars), await env.redis.xlen(k.calendarAudit('c'))]),
    ).toBe(stored);
  });

  it('an .ics import: whole-day events named by their summary, a yearly event expanded', async () => {
    env = testEnv('cal-ics');
    const m = env.manager({ role: 'client' });
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      'UID:1@test',
      'DTSTAMP:20260101T000000Z',
      'DTSTART;VALUE=DATE:20261225',
      'DTEND;VALUE=DATE:20261226',
      'SUMMARY:Christmas',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:2@test',
      'DTSTAMP:20260101T000000Z',
      'DTSTART;VALUE=DATE:20270101',
      'DTEND;VALUE=DATE:20270102',
      'RRULE:FREQ=YEARLY;COUNT=3',
      'SUMMARY:New Year',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    await m.calendars.define('hol', { ics, rules: ['weekends'] });
    const cal = await m.calendars.get('hol');
    expect(cal).toMatchObject({ version: 1, origin: 'mixed' });
    expect(cal?.spec.dates).toEqual([
      { date: '2026-12-25', name: 'Christmas' },
      { date: '2027-01-01', name: 'New Year' },
      { date: '2028-01-01', name: 'New Year' },
      { date: '2029-01-01', name: 'New Year' },
    ]);
  });
});
