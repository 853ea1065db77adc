// Bulk changes by selector and scheduleMany: each schedule changed by the same script as a change of
// one, exactly the selected ones, and the whole change one entry of the deployment's bulk trail with its
// count. The 100,000-schedule case is bulk-100k.test.ts (the volume tier).
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger, JobStatus, ScheduleOptionsError, SelectorError } from '../../src/index.js';
import type { ScheduleManyItem } from '../../src/scheduler/manager/schedule-many.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const TENANTS = ['acme', 'globex', 'initech', 'umbrella'];

function items(n: number): ScheduleManyItem[] {
  return Array.from({ length: n }, (_, i) => ({
    target: { name: 'report' },
    trigger: { type: 'cron', expression: `${i % 60} * * * *` },
    options: {
      id: `s${i}`,
      labels: { tenant: TENANTS[i % 4]!, ...(i % 3 === 0 && { team: i % 2 === 0 ? 'ops' : 'billing' }) },
    },
  }));
}

const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id).sort();

describe('bulk changes by selector', () => {
  it('each operator selects what it says; pause, resume, remove change exactly those, each one bulk entry', async () => {
    env = testEnv('bulk-ops');
    const m = env.manager({ role: 'client' });
    const made = await m.scheduleMany(items(24), { by: 'ann', via: 'api' });
    expect(made).toMatchObject({ matched: 24, count: 24, failed: [] });
    const want = (f: (i: number) => boolean) =>
      Array.from({ length: 24 }, (_, i) => i)
        .filter(f)
        .map((i) => `s${i}`)
        .sort();
    expect(await m.select('tenant=acme').ids()).toEqual(want((i) => i % 4 === 0));
    expect(await m.select('tenant=acme,team!=ops').ids()).toEqual(want((i) => i % 4 === 0 && i % 6 !== 0));
    expect(await m.select('tenant in (acme,globex),team').ids()).toEqual(
      want((i) => i % 4 < 2 && i % 3 === 0),
    );
    expect(await m.select('tenant notin (acme),!team').ids()).toEqual(
      want((i) => i % 4 !== 0 && i % 3 !== 0),
    );
    expect(await m.select('team!=ops').ids()).toEqual(want((i) => !(i % 3 === 0 && i % 2 === 0)));
    expect(ids(await m.select('team=billing').list())).toEqual(want((i) => i % 3 === 0 && i % 2 === 1));

    const paused = await m.select('tenant=acme').pause({ note: 'tenant offboarding', by: 'ann', via: 'cli' });
    expect(paused).toMatchObject({ selector: 'tenant=acme', matched: 6, count: 6, failed: [] });
    expect(ids(await m.list(JobStatus.PAUSED))).toEqual(want((i) => i % 4 === 0));
    expect((await m.get('s4'))?.pauseNote).toMatchObject({ note: 'tenant offboarding', by: 'ann' });
    expect((await m.select('tenant=acme').pause()).count).toBe(0); // already paused: nothing changed
    const resumed = await m.select('tenant=acme,team=ops').resume({ by: 'ann' });
    expect(resumed).toMatchObject({ matched: 2, count: 2 });
    expect(ids(await m.list(JobStatus.PAUSED))).toEqual(want((i) => i % 4 === 0 && i % 6 !== 0));
    const removed = await m.select('tenant=globex').remove({ by: 'ann' });
    expect(removed).toMatchObject({ matched: 6, count: 6 });
    expect(await m.get('s1')).toBeUndefined();
    expect(await m.select('tenant=globex').ids()).toEqual([]);
    expect((await m.list()).length).toBe(18);

    const trail = await m.bulkChanges();
    expect(trail.map((c) => [c.op, c.selector ?? null, c.matched, c.count])).toEqual([
      ['remove', 'tenant=globex', 6, 6],
      ['resume', 'tenant=acme,team=ops', 2, 2],
      ['pause', 'tenant=acme', 6, 0],
      ['pause', 'tenant=acme', 6, 6],
      ['create', null, 24, 24],
    ]);
    expect(trail[3]).toMatchObject({ actor: 'ann', source: 'cli', detail: 'note: tenant offboarding' });
    // each schedule's own trail has its entry too, from the script that changed it
    expect((await m.auditTrail('s4')).map((e) => e.op)).toEqual(['pause', 'create']);
  });

  it('a bulk backfill judges each selected schedule by its own trigger', async () => {
    env = testEnv('bulk-backfill');
    const m = env.manager({ role: 'client' });
    await m.scheduleMany(
      ['a', 'b', 'c'].map((id, i) => ({
        target: { name: 'daily' },
        trigger: new IntervalTrigger(3600),
        options: { id, labels: { tenant: i < 2 ? 'acme' : 'globex' } },
      })),
    );
    const from = Date.UTC(2026, 0, 1);
    const r = await m.select('tenant=acme').backfill({ from, to: from + 3 * 3600_000, dryRun: true });
    expect(r).toMatchObject({ matched: 2, count: 2 });
    expect(r.enqueued).toBeGreaterThan(0);
    expect(r.enqueued % 2).toBe(0); // the same number for each of the two
  });

  it('scheduleMany checks every item before writing any, naming the item and field', async () => {
    env = testEnv('bulk-bad');
    const m = env.manager({ role: 'client' });
    const batch = items(5);
    batch[3] = { ...batch[3]!, options: { id: 's3', labels: { 'my key': 'x' } } };
    await expect(m.scheduleMany(batch)).rejects.toMatchObject({
      name: 'ScheduleOptionsError',
      field: '[3].labels.my key',
    });
    const dup = items(3);
    dup[2] = { ...dup[2]!, options: { id: 's0' } };
    await expect(m.scheduleMany(dup)).rejects.toMatchObject({ field: '[2].id' });
    const badCron = items(2);
    badCron[1] = { ...badCron[1]!, trigger: { type: 'cron', expression: '61 * * * *' } };
    await expect(m.scheduleMany(badCron)).rejects.toBeInstanceOf(ScheduleOptionsError);
    await expect(m.scheduleMany(badCron)).rejects.toMatchObject({
      field: expect.stringMatching(/^\[1\]\.trigger/),
    });
    expect(await m.list()).toEqual([]);
    expect(await m.bulkChanges()).toEqual([]);
    const refusal = (() => {
      try {
        m.select('tenant=acme,,');
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(SelectorError);
    expect(refusal).toMatchObject({
      field: 'selector',
      position: 12,
      message: 'selector: "tenant=acme,,": expected a label key at 12',
    });
    await expect(m.select('tenant=acme').pause({ note: 'x'.repeat(501) })).rejects.toMatchObject({
      field: 'note',
    });
    await expect(m.select('tenant=acme').pause({ by: 'bullbeat' })).rejects.toMatchObject({ field: 'by' });
  });
});
