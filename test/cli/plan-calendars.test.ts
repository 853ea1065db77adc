// bullbeat plan on a jobs module that defines a calendar at its top level: the define writes nothing
// (every key of the test's prefix DUMPed before and after, the calendar still at its version), and the
// plan shows the calendar change and its effect on the schedules on it (their next 3 fire times before
// and after), and a new code schedule on it walked with the new content; exit 6 on a change, 0 when
// the calendar is the same and nothing else changes, `--json` alike.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('plan-calendars');
const fixture = 'test/cli/fixtures/plan-calendar-jobs.ts';

/** Every key of the test's prefix with its DUMP: what a write would change. */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) out.set(key, (await redis.dumpBuffer(key))?.toString('hex') ?? '');
  } while (cursor !== '0');
  return out;
}

async function ok(args: string[]) {
  const r = await runBullbeat(args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

const plan = (dates: string, schedule: boolean, json = false) =>
  runBullbeat(['plan', fixture, ...(json ? ['--json'] : [])], {
    env: { ...env, TEST_QUEUE: queue, CAL_DATES: dates, PLAN_SCHEDULE: schedule ? '1' : '0' },
    timeoutMs: 120_000,
    // its own process, as a user runs it: the module's manager (from the sources, through tsx) and the
    // built CLI are two copies of bullbeat that agree on plan mode
    spawn: true,
  });

describe('bullbeat plan with a calendar defined at import', () => {
  it('writes no calendar, shows its change and the fire times it moves, exits 6; the same calendar exits 0', {
    timeout: 240_000,
  }, async () => {
    const [seconds] = await redis.time();
    const now = DateTime.fromMillis(Number(seconds) * 1000, { zone: 'UTC' });
    let first = now.set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    if (first <= now.plus({ minutes: 1 })) first = first.plus({ days: 1 });
    const day = (d: DateTime) => d.toISODate() as string;
    const far = day(first.plus({ years: 1 }));
    await ok(['calendar:define', 'off', '--dates', far]);
    const add = (id: string, extra: string[]) =>
      ok(['schedule:add', '--id', id, '--name', id, '--cron', '0 9 * * *', '--tz', 'UTC', ...extra]);
    await add('rolled', ['--calendar', 'off', '--on-excluded', 'next']);
    await add('plain', []);
    const before = await snapshot();
    expect(before.size).toBeGreaterThan(0);

    // the module adds the next 09:00's day to `off`, and a code schedule on it
    const dates = `${far},${day(first)}`;
    const text = await plan(dates, true);
    expect(text.code, text.stderr).toBe(6);
    // the module's define answered what it would write
    expect(text.stderr).toContain('defined off: version 2, changed true');
    const iso = (d: DateTime) => `${d.toFormat('yyyy-MM-dd HH:mm:ss').replace(' ', 'T')}Z`;
    const days = (from: DateTime, n: number) =>
      Array.from({ length: n }, (_, i) => iso(from.plus({ days: i }))).join(', ');
    expect(text.stdout).toContain('~ calendar off: version 1 -> 2');
    expect(text.stdout).toContain(
      `    ~ rolled\n        next before: ${days(first, 3)}\n        next after:  ${days(first.plus({ days: 1 }), 3)}\n`,
    );
    expect(text.stdout).not.toContain('~ plain');
    expect(text.stdout).toContain('1 schedule with other fire times, 0 unchanged');
    expect(text.stdout).toContain('1 calendar to define or change, 0 unchanged');
    // the new code schedule on it, walked with the calendar as the module defines it
    expect(text.stdout).toContain(`+ add coded (coded on queue ${queue})`);
    expect(text.stdout).toContain(`    next: ${days(first.plus({ days: 1 }), 3)}`);

    const json = await plan(dates, true, true);
    expect(json.code, json.stderr).toBe(6);
    const p = JSON.parse(json.stdout);
    expect(p.hasChanges).toBe(true);
    expect(p.calendars).toMatchObject([
      { name: 'off', versionBefore: 1, versionAfter: 2, changed: true, unchanged: 0, errors: [] },
    ]);
    expect(p.calendars[0].moved).toEqual([
      {
        id: 'rolled',
        before: [0, 1, 2].map((i) => first.plus({ days: i }).toMillis()),
        after: [1, 2, 3].map((i) => first.plus({ days: i }).toMillis()),
        changed: true,
      },
    ]);
    expect(p.added[0]).toMatchObject({
      id: 'coded',
      nextAfter: [1, 2, 3].map((i) => first.plus({ days: i }).toMillis()),
    });

    // nothing written: not the calendar, not the schedule
    expect(await snapshot()).toEqual(before);
    expect(JSON.parse((await ok(['calendar:show', 'off', '--json'])).stdout).version).toBe(1);

    // the same calendar and no code schedule: no change, exit 0
    const same = await plan(far, false);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('defined off: version 1, changed false');
    expect(same.stdout).toContain('= calendar off: unchanged (version 1)');
    expect(same.stdout).toContain('0 calendars to define or change, 1 unchanged');
    expect(same.stdout).toContain(': no change');
    const sameJson = JSON.parse((await plan(far, false, true)).stdout);
    expect(sameJson).toMatchObject({ hasChanges: false, calendars: [{ name: 'off', changed: false }] });
    expect(await snapshot()).toEqual(before);
  });
});
