// calendar:define / calendar:list / calendar:show: a named calendar from the CLI, each change a new
// audited version; bad input exits 2 naming the flag or field, and writes nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { env, redis, prefix } = cliTestBed('calendar');
const ics = fileURLToPath(new URL('./fixtures/holidays.ics', import.meta.url));

async function ok(args: string[]) {
  const r = await runBullbeat(args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

describe('calendar commands', () => {
  it('define from dates and rules, then an .ics as version 2; list and show', {
    timeout: 120_000,
  }, async () => {
    expect(
      (await ok(['calendar:define', 'mkt', '--dates', '2026-11-26 ,2026-07-03', '--rule', 'weekends']))
        .stdout,
    ).toBe('calendar mkt: version 1\n');
    expect((await ok(['calendar:define', 'mkt', '--ics', ics, '--rule', 'weekends'])).stdout).toBe(
      'calendar mkt: version 2 (was 1)\n',
    );
    expect((await ok(['calendar:define', 'mkt', '--ics', ics, '--rule', 'weekends'])).stdout).toBe(
      'calendar mkt: unchanged (version 2)\n',
    );
    const list = await ok(['calendar:list']);
    expect(list.stdout).toMatch(/^NAME\s+VERSION\s+DATES\s+RULES/);
    expect(list.stdout).toMatch(/\nmkt\s+v2\s+1\s+weekends\s/);
    const show = JSON.parse((await ok(['calendar:show', 'mkt', '--json'])).stdout);
    expect(show).toMatchObject({
      name: 'mkt',
      version: 2,
      origin: 'mixed',
      spec: { dates: [{ date: '2026-12-25', name: 'Christmas' }], rules: ['weekends'] },
    });
    expect(show.history.map((h: { version: number }) => h.version)).toEqual([2, 1]);
    expect(show.history[0].before.dates).toEqual([{ date: '2026-11-26' }, { date: '2026-07-03' }]);
    expect((await ok(['calendar:show', 'mkt'])).stdout).toContain('  2026-12-25  Christmas\n');

    // a runtime schedule on it, and one on a calendar that does not exist (refused, not stored)
    const added = await ok([
      'schedule:add',
      '--name',
      'open',
      '--cron',
      '30 9 * * *',
      '--tz',
      'America/New_York',
      '--calendar',
      'mkt',
      '--on-excluded',
      'next',
      '--json',
    ]);
    expect(JSON.parse(added.stdout).spec).toEqual({
      type: 'calendar',
      calendar: 'mkt',
      onExcluded: 'next',
      trigger: { type: 'cron', expression: '30 9 * * *', timezone: 'America/New_York' },
    });
    const r = await runBullbeat(['schedule:add', '--name', 'nope', '--every', '60', '--calendar', 'nope'], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/calendar: unknown calendar "nope"/);
    expect(await redis.hexists(`{${prefix}}:bb:schedules`, 'nope')).toBe(0);
    expect(await redis.hexists(`{${prefix}}:bb:schedules`, 'open')).toBe(1);
  });

  it('bad input exits 2 naming the flag or field; nothing written', { timeout: 120_000 }, async () => {
    const before = await redis.keys(`{${prefix}}*calendars*`);
    const bad = async (args: string[], message: RegExp) => {
      const r = await runBullbeat(args, { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    await bad(
      ['calendar:define', 'x', '--rule', 'fortnightly'],
      /calendar "x": rules\[0\]: unknown rule "fortnightly"/,
    );
    await bad(
      ['calendar:define', 'x', '--dates', '2026-13-01'],
      /calendar "x": dates\[0\]: "2026-13-01" is not a real date/,
    );
    await bad(
      ['calendar:define', 'x', '--ics', fileURLToPath(import.meta.url)],
      /calendar "x": ics: does not parse as iCalendar/,
    );
    await bad(['calendar:define', 'x', '--ics', '/nonexistent.ics'], /--ics: cannot read/);
    await bad(['calendar:define', 'x'], /--dates: give --dates, --ics or --rule/);
    expect(await redis.keys(`{${prefix}}*calendars*`)).toEqual(before);
    expect(await redis.hexists(`{${prefix}}:bb:calendars`, 'x')).toBe(0);
  });
});
