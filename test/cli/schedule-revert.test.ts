// schedule:revert <id> [--to <entry>]: a runtime schedule back to its definition before the last change
// (or an entry's), audited as the CLI user; refused with exit 2 naming the field for a code schedule
// or another schedule's entry, exit 4 for no schedule.
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { queue, env } = cliTestBed('revert');

async function ok(args: string[]) {
  const r = await runBullbeat(args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

describe('schedule:revert', () => {
  it("restores the trigger before an update, audited; refuses another schedule's entry", {
    timeout: 180_000,
  }, async () => {
    await ok(['schedule:add', '--name', 'export', '--cron', '0 6 * * *', '--queue', queue]);
    await ok(['schedule:add', '--name', 'other', '--every', '60', '--queue', queue]);
    await ok(['schedule:update', 'export', '--every', '600', '--attempts', '4']);
    const text = await ok(['schedule:revert', 'export']);
    expect(text.stdout).toContain('reverted export (audit entry');
    expect(text.stdout).toContain(
      'trigger: {"type":"interval","seconds":600} → {"type":"cron","expression":"0 6 * * *"',
    );
    const shown = JSON.parse((await ok(['schedule:show', 'export', '--json'])).stdout);
    expect(shown.spec).toMatchObject({ type: 'cron', expression: '0 6 * * *' });
    const history = JSON.parse((await ok(['schedule:history', 'export', '--json'])).stdout);
    expect(history.items[0]).toMatchObject({ op: 'update', source: 'cli' });
    expect(history.items[0].changes.map((c: { field: string }) => c.field).sort()).toEqual([
      'attempts',
      'trigger',
    ]);
    expect(history.items[0].definition.attempts).toBe(1);

    const other = JSON.parse((await ok(['schedule:history', 'other', '--json'])).stdout).items[0].id;
    const refused = await runBullbeat(['schedule:revert', 'export', '--to', other], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('to: ');
    expect(refused.stderr).toContain("is not an entry of this schedule's audit trail");
    const none = await runBullbeat(['schedule:revert', 'never-was'], { env });
    expect(none.code).toBe(4);
  });
});
