import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { REDIS_URL } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';

const { prefix, redis } = cliTestBed('budget');
const DAY = 86_400_000;

/** Every minute of the 30 days from `from` excluded (even and odd minutes), behind 935 past dates. */
function thirtyDaysExcluded(from: number): string[] {
  const entries = Array.from({ length: 935 }, (_, i) =>
    new Date(Date.UTC(1990, 0, 1) + i * DAY).toISOString().slice(0, 10),
  );
  for (let d = 0; d < 30; d++) {
    const t = new Date(from + d * DAY);
    const day = `${t.getUTCDate()} ${t.getUTCMonth() + 1}`;
    entries.push(`*/2 * ${day} *`, `1-59/2 * ${day} *`);
  }
  return entries;
}

describe('schedule:add and the trigger time budget', () => {
  it('an --except list whose next time cannot be computed within the budget: exit 2 naming the schedule and the budget, nothing stored', async () => {
    let err = '';
    const except = thirtyDaysExcluded(Date.now()).flatMap((e) => ['--except', e]);
    const code = await runCli(['schedule:add', '--name', 'heavy', '--every', '60', ...except], {
      stdout: () => {},
      stderr: (t) => {
        err += t;
      },
      env: { REDIS_URL, BULLBEAT_PREFIX: prefix, LOG_LEVEL: 'silent' },
      cwd: process.cwd(),
      stdoutIsTTY: false,
      now: () => Date.now(),
    });
    expect(code).toBe(2);
    expect(err).toMatch(
      /^bullbeat: --except: the next fire time of "heavy" cannot be computed within the trigger time budget \(50 ms of CPU, triggerBudgetMs\)/,
    );
    expect(await redis.hlen(`{${prefix}}:bb:schedules`)).toBe(0);
  });
});
