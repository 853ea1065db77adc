// calendar:define --dry-run: what a calendar change would do, before it is written: the schedules on the
// calendar whose next fire times it moves, before and after, the others counted unchanged; nothing is
// written (every key of the test's prefix DUMPed before and after); exit 6 when some move, 0 otherwise,
// 2 on bad input naming the field.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, env, redis } = cliTestBed('calendar-plan');

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

const add = (id: string, extra: string[]) =>
  ok(['schedule:add', '--id', id, '--name', id, '--cron', '0 9 * * *', '--tz', 'UTC', ...extra]);

describe('calendar:define --dry-run', () => {
  it('lists the schedules whose next fire times a change moves, before and after, and writes nothing', {
    timeout: 120_000,
  }, async () => {
    const [seconds] = await redis.time();
    const now = DateTime.fromMillis(Number(seconds) * 1000, { zone: 'UTC' });
    let first = now.set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    if (first <= now.plus({ minutes: 1 })) first = first.plus({ days: 1 });
    const day = (d: DateTime) => d.toISODate() as string;
    const far = first.plus({ years: 1 });
    await ok(['calendar:define', 'off', '--dates', day(far)]);
    await ok(['calendar:define', 'other', '--dates', day(far)]);
    await add('rolled', ['--calendar', 'off', '--on-excluded', 'next']);
    await add('skipped', ['--calendar', 'off']);
    await add('elsewhere', ['--calendar', 'other']);
    await add('plain', []);
    const before = await snapshot();
    expect(before.size).toBeGreaterThan(0);

    // adding the next 09:00's day: both schedules on `off` move, the others are not on it
    const args = ['calendar:define', 'off', '--dates', `${day(far)},${day(first)}`, '--dry-run'];
    const text = await runBullbeat(args, { env });
    expect(text.code, text.stderr).toBe(6);
    const iso = (d: DateTime) => `${d.toFormat('yyyy-MM-dd HH:mm:ss')}Z`;
    const times = (from: DateTime, skipFirst: boolean) =>
      [0, 1, 2, 3]
        .map((i) => from.plus({ days: i }))
        .filter((_, i) => !(skipFirst && i === 0))
        .slice(0, 3)
        .map(iso)
        .join(', ');
    expect(text.stdout).toContain('calendar off: would become version 2 (now 1); dry run at');
    expect(text.stdout).toContain(
      `~ rolled\n    next before: ${times(first, false)}\n    next after:  ${times(first, true)}\n`,
    );
    expect(text.stdout).toContain(`~ skipped\n    next before: ${times(first, false)}`);
    expect(text.stdout).not.toContain('elsewhere');
    expect(text.stdout).not.toContain('plain');
    expect(text.stdout).toContain('2 schedules with other fire times, 0 unchanged');

    const json = await runBullbeat([...args, '--json'], { env });
    expect(json.code).toBe(6);
    const plan = JSON.parse(json.stdout);
    expect(plan).toMatchObject({
      name: 'off',
      versionBefore: 1,
      versionAfter: 2,
      changed: true,
      unchanged: 0,
    });
    expect(plan.moved.map((e: { id: string }) => e.id).sort()).toEqual(['rolled', 'skipped']);
    const rolled = plan.moved.find((e: { id: string }) => e.id === 'rolled');
    expect(rolled.before[0]).toBe(first.toMillis());
    expect(rolled.after[0]).toBe(first.plus({ days: 1 }).toMillis());

    // a change that moves no fire time (a day a year and a day away) exits 0; the same content too
    const far2 = await runBullbeat(
      ['calendar:define', 'off', '--dates', `${day(far)},${day(far.plus({ days: 1 }))}`, '--dry-run'],
      { env },
    );
    expect(far2.code, far2.stderr).toBe(0);
    expect(far2.stdout).toContain('0 schedules with other fire times, 2 unchanged');
    const same = await runBullbeat(['calendar:define', 'off', '--dates', day(far), '--dry-run'], { env });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('calendar off: unchanged (version 1): nothing would be written');
    // a new calendar: no schedule uses it yet
    const fresh = await runBullbeat(['calendar:define', 'new-one', '--rule', 'weekends', '--dry-run'], {
      env,
    });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('calendar new-one: would be defined (version 1)');

    // bad input: exit 2 naming the field, nothing written
    const bad = await runBullbeat(['calendar:define', 'off', '--rule', 'fortnightly', '--dry-run'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rules[0]');

    expect(await snapshot()).toEqual(before);
    expect(JSON.parse((await ok(['calendar:show', 'off', '--json'])).stdout).version).toBe(1);
  });
});
