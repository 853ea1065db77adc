// POST /api/schedules/:id/trigger with { data, jobOptions }: this run's data and job options, its record
// marked overridden by the token's actor; too much data, bad job options, unknown keys: 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { startTestDashboard, type TestDashboard, TOKEN } from './harness.js';

describe('trigger with overrides over the JSON API', () => {
  let t: TestDashboard;
  beforeAll(async () => {
    t = await startTestDashboard();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('enqueues the run with the given data, records the override, refuses bad input naming the field', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'ovr',
      queue: t.queue,
      data: { n: 1 },
      trigger: { type: 'interval', seconds: 3600 },
    });
    const r = await t.api('POST', '/api/schedules/ovr/trigger', {
      data: { n: 3 },
      jobOptions: { priority: 5 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const job = await internalsOf(t.scheduler).queue(t.queue).getJob(r.body.jobId);
    expect(job?.data.data).toEqual({ n: 3 });
    expect(job?.opts.priority).toBe(5);
    const runs = (await t.api('GET', '/api/schedules/ovr/runs')).body;
    const items = (runs.items ?? runs) as { kind: string; overrides?: string; overriddenBy?: string }[];
    expect(items.find((x) => x.kind === 'manual')).toMatchObject({
      overrides: 'data,jobOptions',
      overriddenBy: 'api:token',
    });

    const counts = await internalsOf(t.scheduler).queue(t.queue).getJobCounts();
    for (const [body, field] of [
      [{ data: 'x'.repeat(70_000) }, 'data'],
      [{ jobOptions: { priority: 'high' } }, 'jobOptions.priority'],
      [{ date: {} }, 'date'],
    ] as const) {
      const bad = await t.api('POST', '/api/schedules/ovr/trigger', body);
      expect(bad.status, JSON.stringify(bad.body)).toBe(400);
      expect(bad.body.field).toBe(field);
    }
    expect(await internalsOf(t.scheduler).queue(t.queue).getJobCounts()).toEqual(counts);

    const page = await (
      await fetch(`${t.url}/schedules/ovr`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).text();
    expect(page).toContain('data-trigger-data');
  });

  it('backfills with the given data: every run carries it, each record marked overridden, too much data a 400', async () => {
    await t.api('POST', '/api/schedules', {
      name: 'bf',
      queue: t.queue,
      data: { n: 1 },
      trigger: { type: 'interval', seconds: 3600 },
    });
    const created = (await t.api('GET', '/api/schedules/bf')).body.createdAt as number;
    // two hours before the schedule was created: never judged, so a backfill runs them
    const range = { from: created - 2 * 3_600_000 - 1, to: created - 1 };
    const counts = await internalsOf(t.scheduler).queue(t.queue).getJobCounts();
    const big = await t.api('POST', '/api/schedules/bf/backfill', { ...range, data: 'x'.repeat(70_000) });
    expect(big.status, JSON.stringify(big.body)).toBe(400);
    expect(big.body.field).toBe('data');
    expect(await internalsOf(t.scheduler).queue(t.queue).getJobCounts()).toEqual(counts);

    const r = await t.api('POST', '/api/schedules/bf/backfill', { ...range, data: { n: 4 } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const ids = (r.body.occurrences as { jobId?: string }[]).flatMap((o) => (o.jobId ? [o.jobId] : []));
    expect(ids.length).toBeGreaterThan(0);
    const queue = internalsOf(t.scheduler).queue(t.queue);
    for (const jobId of ids) {
      const job = await (async () => {
        for (let i = 0; i < 100; i++) {
          const j = await queue.getJob(jobId);
          if (j) return j;
          await new Promise((res) => setTimeout(res, 50));
        }
        return undefined;
      })();
      expect(job?.data.data).toEqual({ n: 4 });
    }
    type Run = { kind: string; overrides?: string; overriddenBy?: string };
    // the records are written just after the jobs are added
    let backfilled: Run[] = [];
    for (let i = 0; i < 100 && backfilled.length < ids.length; i++) {
      const runs = (await t.api('GET', '/api/schedules/bf/runs')).body.items as Run[];
      backfilled = runs.filter((x) => x.kind === 'backfill');
      if (backfilled.length < ids.length) await new Promise((res) => setTimeout(res, 50));
    }
    expect(backfilled).toHaveLength(ids.length);
    for (const x of backfilled) expect(x).toMatchObject({ overrides: 'data', overriddenBy: 'api:token' });
    const trail = (await t.api('GET', '/api/schedules/bf/history')).body;
    const entries = (trail.items ?? trail) as { op: string; overrides?: string }[];
    expect(entries.find((e) => e.op === 'backfill')?.overrides).toBe('data');
  });
});
