// schedule:list shows a schedule on a calendar at the run that will actually happen (the calendar's
// current version applied, an `onExcluded` roll included), not the wake-up stored as its due time.
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { env, redis } = cliTestBed('list-calendar');

async function ok(args: string[]) {
  const r = await runBullbeat(args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

describe('schedule:list on a calendar', () => {
  it('shows the rolled run (next) and the next included day (skip), with the wake-up beside it in JSON', {
    timeout: 120_000,
  }, async () => {
    const [seconds] = await redis.time();
    const now = DateTime.fromMillis(Number(seconds) * 1000, { zone: 'UTC' });
    // the next 09:00 UTC and the day after it are days off: the wake-up is the first, the run the third
    let first = now.set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
    if (first <= now.plus({ minutes: 1 })) first = first.plus({ days: 1 });
    const day = (d: DateTime) => d.toISODate() as string;
    await ok(['calendar:define', 'off', '--dates', `${day(first)},${day(first.plus({ days: 1 }))}`]);
    for (const [name, onExcluded] of [
      ['rolled', 'next'],
      ['skipped', 'skip'],
    ]) {
      await ok([
        'schedule:add',
        '--id',
        name as string,
        '--name',
        name as string,
        '--cron',
        '0 9 * * *',
        '--tz',
        'UTC',
        '--calendar',
        'off',
        '--on-excluded',
        onExcluded as string,
      ]);
    }
    await ok(['schedule:add', '--id', 'plain', '--name', 'plain', '--cron', '0 9 * * *', '--tz', 'UTC']);

    const listed = JSON.parse((await ok(['schedule:list', '--json'])).stdout) as {
      id: string;
      nextRunTime: number | null;
      wakeUpTime?: number;
    }[];
    const byId = new Map(listed.map((j) => [j.id, j]));
    const third = first.plus({ days: 2 }).toMillis();
    for (const id of ['rolled', 'skipped']) {
      expect(byId.get(id)).toMatchObject({ nextRunTime: third, wakeUpTime: first.toMillis() });
    }
    expect(byId.get('plain')?.nextRunTime).toBe(first.toMillis());
    expect(byId.get('plain')).not.toHaveProperty('wakeUpTime');

    const table = (await ok(['schedule:list'])).stdout;
    const shortOf = (t: DateTime) => `${t.toFormat('yyyy-MM-dd HH:mm:ss')}Z`;
    const row = (id: string) => table.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('rolled')).toContain(shortOf(first.plus({ days: 2 })));
    expect(row('rolled')).not.toContain(shortOf(first));
    expect(row('plain')).toContain(shortOf(first));

    // schedule:show says the same: the run as it will happen, the wake-up beside it
    const shownJson = JSON.parse((await ok(['schedule:show', 'rolled', '--json'])).stdout) as {
      nextRunTime: number | null;
      wakeUpTime?: number;
    };
    expect(shownJson).toMatchObject({ nextRunTime: third, wakeUpTime: first.toMillis() });
    const shownText = (await ok(['schedule:show', 'rolled'])).stdout;
    expect(shownText).toMatch(new RegExp(`next run\\s+${shortOf(first.plus({ days: 2 }))}`));
    expect(shownText).toMatch(new RegExp(`wakes up\\s+${shortOf(first)}`));
    const plainShown = JSON.parse((await ok(['schedule:show', 'plain', '--json'])).stdout);
    expect(plainShown.nextRunTime).toBe(first.toMillis());
    expect(plainShown).not.toHaveProperty('wakeUpTime');
  });
});
