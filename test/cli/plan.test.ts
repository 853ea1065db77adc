// bullbeat plan <jobs module>: what a start of the module would do to the stored schedules, field by
// field, with the renamed-looking pair flagged, and nothing written (every key of the test's prefix
// and queue DUMPed before and after); exit 6 on changes, 0 on unchanged code, 2 on a broken module.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { REDIS_URL } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { defineJobs } from './fixtures/plan-jobs.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env, redis } = cliTestBed('plan');
const fixture = 'test/cli/fixtures/plan-jobs.ts';

/** Every key of the test's prefix and queue with its DUMP: what a write would change. */
async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const pattern of [`{${prefix}}*`, `bull:${queue}*`]) {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) out.set(key, (await redis.dumpBuffer(key))?.toString('hex') ?? '');
    } while (cursor !== '0');
  }
  return out;
}

/** Deploys version `v` of the fixture as a start would: its code schedules upserted. */
async function deploy(v: string, role: 'client' | 'scheduler' = 'client'): Promise<void> {
  const m = new SchedulerManager({ prefix, role, connection: REDIS_URL, logger: pino({ level: 'silent' }) });
  defineJobs(m, v, queue);
  await m.start();
  await m.stop();
}

async function plan(version: string, json = false) {
  // the fixture reads these; put back after, as the files sharing this test process expect them
  const names = ['BULLBEAT_PREFIX', 'TEST_QUEUE', 'PLAN_VERSION'] as const;
  const saved = names.map((n) => process.env[n]);
  process.env.BULLBEAT_PREFIX = prefix;
  process.env.TEST_QUEUE = queue;
  process.env.PLAN_VERSION = version;
  try {
    return await runBullbeat(['plan', fixture, ...(json ? ['--json'] : [])], { env, timeoutMs: 120_000 });
  } finally {
    names.forEach((n, i) => {
      if (saved[i] === undefined) delete process.env[n];
      else process.env[n] = saved[i];
    });
  }
}

describe('bullbeat plan', () => {
  it('shows a rename, a changed cron and a dropped schedule, writes nothing, exits 6; unchanged code exits 0', {
    timeout: 240_000,
  }, async () => {
    await deploy('1');
    const before = await snapshot();
    expect(before.size).toBeGreaterThan(3);

    const text = await plan('2');
    expect(text.code, text.stderr).toBe(6);
    const out = text.stdout;
    expect(out).toContain('+ add export-daily (export on queue');
    expect(out).toContain('looks like a rename of export');
    expect(out).toMatch(/~ change report \(active\) \[re-timed\]/);
    expect(out).toContain(
      'trigger: {"type":"cron","expression":"0 9 * * 1-5","timezone":"America/New_York"} -> {"type":"cron","expression":"0 10 * * 1-5","timezone":"America/New_York"}',
    );
    expect(out).toMatch(/- not in code cleanup .*paused as orphaned/);
    expect(out).toMatch(/- not in code export .*paused as orphaned/);
    expect(out).toContain('! rename? export -> export-daily');
    expect(out).toContain('duplicate-run trap');
    expect(out).toContain('1 to add, 1 to change, 2 to orphan, 1 renamed-looking, 1 unchanged');

    const json = JSON.parse((await plan('2', true)).stdout);
    expect(json.hasChanges).toBe(true);
    expect(json.added.map((a: { id: string }) => a.id)).toEqual(['export-daily']);
    expect(json.renamed).toEqual([{ from: 'export', to: 'export-daily', name: 'export', queue }]);
    expect(json.removed.map((r: { id: string; effect: string }) => [r.id, r.effect])).toEqual([
      ['cleanup', 'orphaned'],
      ['export', 'orphaned'],
    ]);
    const [report] = json.changed;
    expect(report.changes.map((c: { field: string }) => c.field)).toEqual(['trigger']);
    // the next 3 fire times before (09:00 New York) and after (10:00 New York), from Redis's clock
    const at = json.at as number;
    const walk = (expr: string) => {
      const t = new CronTrigger(expr, { timezone: 'America/New_York' });
      const list: number[] = [];
      let last: number | null = null;
      for (let i = 0; i < 3; i++) list.push((last = t.nextFire(last, at) as number));
      return list;
    };
    expect(report.nextBefore).toEqual(walk('0 9 * * 1-5'));
    expect(report.nextAfter).toEqual(walk('0 10 * * 1-5'));
    expect(json.unchanged).toBe(1);

    expect(await snapshot()).toEqual(before); // nothing written, by either run

    const same = await plan('1');
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain(
      '0 to add, 0 to change, 0 to orphan, 0 renamed-looking, 4 unchanged: no change',
    );
    expect(JSON.parse((await plan('1', true)).stdout).hasChanges).toBe(false);
    expect(await snapshot()).toEqual(before);

    // the deploy then does what the plan said: the rename's old id and the dropped one are orphaned
    await deploy('2', 'scheduler');
    const after = await plan('2', true);
    expect(after.code, after.stderr).toBe(0);
    const p = JSON.parse(after.stdout);
    expect(p.hasChanges).toBe(false);
    expect(
      p.removed.map((r: { id: string; status: string; effect: string }) => [r.id, r.status, r.effect]),
    ).toEqual([
      ['cleanup', 'orphaned', 'none'],
      ['export', 'orphaned', 'none'],
    ]);
  });

  it('a module that does not load: exit 2 naming it, nothing written', { timeout: 120_000 }, async () => {
    const before = await snapshot();
    const r = await runBullbeat(['plan', 'test/cli/fixtures/no-such-module.ts'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no-such-module');
    expect(await snapshot()).toEqual(before);
  });
});
