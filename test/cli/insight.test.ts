// `bullbeat agenda` and `bullbeat schedule:why`, spawned as a user runs them.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const qa = `cli-insight-a-${randomUUID().slice(0, 8)}`;
const qb = `cli-insight-b-${randomUUID().slice(0, 8)}`;
const { env } = cliTestBed('insight');

beforeAll(async () => {
  for (const args of [
    ['--name', 'nightly', '--cron', '0 2 * * *', '--tz', 'Europe/Berlin', '--queue', qa],
    ['--name', 'hourly', '--every', '3600', '--queue', qb],
  ]) {
    const run = await runBullbeat(['schedule:add', ...args], { env });
    expect(run.code).toBe(0);
  }
});

interface Entry {
  at: number;
  scheduleId: string;
  queue: string;
  zone: string;
  local: string;
}

describe('agenda', () => {
  it('merges every fire instant of every schedule in time order, in UTC and in each zone', async () => {
    const run = await runBullbeat(['agenda', '--next', '2d', '--json'], { env });
    expect(run.code).toBe(0);
    const a = JSON.parse(run.stdout) as { entries: Entry[]; perQueue: Record<string, number>; from: number };
    const ats = a.entries.map((e) => e.at);
    expect(ats).toEqual([...ats].sort((x, y) => x - y));
    expect(a.perQueue[qb]).toBe(48);
    expect(a.perQueue[qa]).toBe(2);
    const nightly = a.entries.filter((e) => e.scheduleId === 'nightly');
    expect(nightly[0]?.zone).toBe('Europe/Berlin');
    expect(nightly[0]?.local).toMatch(/T02:00:00\+0[12]:00$/);
    expect(a.entries.every((e) => e.at >= a.from && e.at <= a.from + 2 * 86_400_000)).toBe(true);
  });

  it('--queue keeps one queue; the text form lists instants and counts', async () => {
    const run = await runBullbeat(['agenda', '--next', '30h', '--queue', qa], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/T02:00:00\+0[12]:00 Europe\/Berlin/);
    expect(run.stdout).not.toContain('hourly');
    expect(run.stdout).toMatch(new RegExp(`\\n[12] fires? from .* \\(${qa} [12]\\)`));
  });

  it('--limit cuts the rows, never the counts: the cut is said on stderr and under the table', async () => {
    const run = await runBullbeat(['agenda', '--next', '2d', '--queue', qb, '--limit', '3'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'bullbeat: agenda: the first 3 of 48 fires shown; --limit 48 shows them all',
    );
    expect(run.stdout).toMatch(/\n48 fires from .*\nthe first 3 of 48 fires shown/);
    const json = await runBullbeat(['agenda', '--next', '2d', '--queue', qb, '--limit', '3', '--json'], {
      env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ truncated: true, perQueue: { [qb]: 48 } });
    expect(json.stderr).toContain('the first 3 of 48 fires shown');
  });

  it('the busiest minute is counted over the window, not over the rows shown', async () => {
    // both schedules fire in the same minute only at 02:00 Berlin time, far past the first row
    const run = await runBullbeat(['agenda', '--next', '2d', '--limit', '1', '--json'], { env });
    const a = JSON.parse(run.stdout) as { busiestMinute?: { at: number; count: number }; entries: Entry[] };
    expect(a.entries).toHaveLength(1);
    expect(a.busiestMinute?.count).toBe(2);
  });

  it('an empty window says "nothing fires" once, with no "0 fires" line', async () => {
    const run = await runBullbeat(['agenda', '--queue', `none-${qa}`], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^nothing fires from .* on queue none-/);
    expect(run.stdout).not.toMatch(/\b0 fires\b/);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a bad window is a usage error naming the flag', async () => {
    const run = await runBullbeat(['agenda', '--next', 'soon'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--next');
  });

  it('a window past the year 9999 is a usage error naming the flag, not an unexpected error', async () => {
    const run = await runBullbeat(['agenda', '--next', '99999999999999999999d'], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: --next: /);
  });
});

describe('schedule:why', () => {
  it('explains an occurrence: the instant in its zone; not due yet', async () => {
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const run = await runBullbeat(['schedule:why', 'nightly', '--at', at], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ trigger .*= \S+T02:00:00\+0[12]:00 in Europe\/Berlin/);
    expect(run.stdout).toMatch(/did not run: not due yet/);
    const json = await runBullbeat(['schedule:why', 'nightly', '--at', at, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      scheduleId: 'nightly',
      cause: 'not-due-yet',
      ran: false,
    });
  });

  it.each(['99999999999999999999', '-5', '10000-01-01T00:00:00Z'])(
    '--at %s, past the instants a schedule may use: a usage error naming the flag (exit 2)',
    async (at) => {
      const run = await runBullbeat(['schedule:why', 'nightly', '--at', at], { env });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^bullbeat: --at: /);
      expect(run.stderr).not.toContain('unexpected error');
    },
  );

  it('an unknown id exits 4', async () => {
    const run = await runBullbeat(['schedule:why', 'nope'], { env });
    expect(run.code).toBe(4);
  });
});
