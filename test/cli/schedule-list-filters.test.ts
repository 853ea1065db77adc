// schedule:list --status, --queue, --search and --limit: the filtered list from the list indexes, as a
// user runs the CLI; a bad status or limit refused naming the flag (exit 2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { queue, env } = cliTestBed('list-filters');
const dir = mkdtempSync(join(tmpdir(), 'bb-list-'));

const line = (id: string, name: string, q: string) =>
  JSON.stringify({
    id,
    name,
    queue: q,
    trigger: { type: 'cron', expression: '0 9 * * *' },
    labels: { k: id },
  });

describe('schedule:list filters', () => {
  it('lists by status, queue and search text, a page by --limit; refuses a bad status or limit naming the flag', async () => {
    const file = join(dir, 'five.ndjson');
    const rows = [
      line('a', 'nightly-report', queue),
      line('b', 'billing', queue),
      line('c', 'cleanup', `${queue}-other`),
      line('d', 'daily-report', `${queue}-other`),
      line('e', 'export', queue),
    ];
    writeFileSync(file, `${rows.join('\n')}\n`);
    expect((await runBullbeat(['schedule:import', file], { env })).code).toBe(0);
    expect((await runBullbeat(['schedule:pause', '--selector', 'k in (b,d)'], { env })).code).toBe(0);
    const ids = async (...args: string[]) => {
      const run = await runBullbeat(['schedule:list', ...args, '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { id: string }[]).map((j) => j.id);
    };
    expect(await ids('--status', 'paused')).toEqual(['b', 'd']);
    expect(await ids('--status', 'active')).toEqual(['c', 'e', 'a']);
    expect(await ids('--queue', `${queue}-other`)).toEqual(['c', 'd']);
    expect(await ids('--search', 'REPORT')).toEqual(['d', 'a']);
    expect(await ids('--status', 'active', '--limit', '2')).toEqual(['c', 'e']);
    const table = await runBullbeat(['schedule:list', '--status', 'active', '--limit', '2'], { env });
    expect(table.stdout).toContain('2 of 3 schedules');

    const bad = await runBullbeat(['schedule:list', '--status', 'sleeping'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status');
    const badLimit = await runBullbeat(['schedule:list', '--limit', '0'], { env });
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('--limit');
  }, 60_000);
});
