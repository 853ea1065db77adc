import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';

beforeAll(assertBuilt);

describe('bullbeat schedule:next', () => {
  it('describes the expression in words and lists the next fire times as instants and in the zone', async () => {
    const run = await runBullbeat([
      'schedule:next',
      '0 9 * * 1-5',
      '--tz',
      'America/New_York',
      '-n',
      '3',
      '--from',
      '2026-03-06T00:00:00Z',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe('At 09:00, Monday through Friday (America/New_York)');
    // Friday 6 March (EST, -05:00), then Monday 9 March after the spring-forward (EDT, -04:00).
    expect(lines[2]).toMatch(/^\s+1 {2}2026-03-06T14:00:00\.000Z {2}Fri 2026-03-06 09:00:00 EST/);
    expect(lines[3]).toMatch(/^\s+2 {2}2026-03-09T13:00:00\.000Z {2}Mon 2026-03-09 09:00:00 EDT/);
    expect(lines[4]).toMatch(/^\s+3 {2}2026-03-10T13:00:00\.000Z {2}Tue 2026-03-10 09:00:00 EDT/);
    expect(lines).toHaveLength(5);
  });

  it('--json gives the same instants, machine-readable', async () => {
    const run = await runBullbeat(['schedule:next', '*/15 * * * *', '-n', '2', '--from', '0', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { timezone: string; next: { at: number; iso: string }[] };
    expect(out.timezone).toBe('UTC');
    expect(out.next.map((n) => n.at)).toEqual([15 * 60_000, 30 * 60_000]);
    expect(out.next[0]?.iso).toBe('1970-01-01T00:15:00.000Z');
  });

  it('defaults to 5 fire times after now', async () => {
    const before = Date.now();
    const run = await runBullbeat(['schedule:next', '@hourly', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { next: { at: number }[] };
    expect(out.next).toHaveLength(5);
    expect(out.next[0]?.at).toBeGreaterThan(before);
    expect(out.next.every((n) => n.at % 3_600_000 === 0)).toBe(true);
  });

  it('a bad expression: the parser message naming the field, exit 2, no stack trace', async () => {
    const run = await runBullbeat(['schedule:next', '0 0 32 * *']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('bullbeat: cron "0 0 32 * *": day-of-month "32": out of range 1-31\n');
  });

  it('an expression that can never fire: exit 2', async () => {
    const run = await runBullbeat(['schedule:next', '0 0 30 2 *']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('can never fire');
  });

  it('an unknown zone: exit 2 naming it', async () => {
    const run = await runBullbeat(['schedule:next', '0 9 * * *', '--tz', 'Mars/Olympus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Mars/Olympus');
    expect(run.stderr).not.toContain('    at ');
  });

  it('a bad -n: exit 2', async () => {
    const run = await runBullbeat(['schedule:next', '@daily', '-n', 'zero']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('expected a whole number from 1');
  });

  it('a --from past the year 9999: exit 2 naming the flag, not an unexpected error', async () => {
    const run = await runBullbeat(['schedule:next', '@daily', '--from', '99999999999999999999']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: --from: "99999999999999999999": /);
  });

  it('a bad --from: exit 2 naming the flag', async () => {
    const run = await runBullbeat(['schedule:next', '@daily', '--from', 'yesterday']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--from: expected an ISO 8601 instant or epoch ms');
  });
});
