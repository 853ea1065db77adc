// schedule:history <id> [--json]: the audit trail from the CLI, every CLI change by this OS user and
// host via `cli`; a removed schedule's trail while it is kept; exit 4 when there is neither.
import { hostname, userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { queue, env } = cliTestBed('history');
const me = `cli:${userInfo().username}@${hostname()}`;

async function ok(args: string[]) {
  const r = await runBullbeat(args, { env });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

describe('schedule:history', () => {
  it('shows each change made from the CLI, newest first, as a table and as JSON', {
    timeout: 180_000,
  }, async () => {
    await ok(['schedule:add', '--name', 'export', '--every', '3600', '--queue', queue]);
    await ok(['schedule:update', 'export', '--every', '600']);
    await ok(['schedule:pause', 'export', '--note', 'quarterly freeze']);
    await ok(['schedule:resume', 'export', '--policy', 'once']);

    const text = await ok(['schedule:history', 'export']);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TIME \(UTC\)\s+CHANGE\s+BY\s+VIA\s+DETAILS$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[1])).toEqual(['resume', 'pause', 'update', 'create']);
    for (const l of lines.slice(1)) expect(l).toContain(`${me}  cli`);
    expect(lines[1]).toContain('policy once');
    expect(lines[2]).toContain('"quarterly freeze"');
    expect(lines[3]).toContain(
      'trigger: {"type":"interval","seconds":3600} → {"type":"interval","seconds":600}',
    );

    const json = JSON.parse((await ok(['schedule:history', 'export', '--json'])).stdout);
    expect(json.removed).toBe(false);
    expect(json.items.map((e: { op: string }) => e.op)).toEqual(['resume', 'pause', 'update', 'create']);
    expect(json.items[1]).toMatchObject({ op: 'pause', actor: me, source: 'cli', note: 'quarterly freeze' });
    expect(json.items[2].changes).toEqual([
      {
        field: 'trigger',
        before: { type: 'interval', seconds: 3600 },
        after: { type: 'interval', seconds: 600 },
      },
    ]);
    expect(typeof json.items[0].at).toBe('number');

    // removed: the trail is kept to investigate it
    await ok(['schedule:remove', 'export']);
    const gone = await ok(['schedule:history', 'export', '--limit', '1']);
    expect(gone.stdout).toMatch(new RegExp(`remove\\s+${me.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+cli`));
    expect(gone.stdout).toContain('is removed');
    const none = await runBullbeat(['schedule:history', 'never-was'], { env });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('never-was');
  });
});
