// The schedule page says how many occurrences it lists of those kept, and where the rest are; the
// schedules page says its run totals cover removed schedules too.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { BEARER, quietLogger, startTestDashboard, type TestDashboard } from './harness.js';

const HOUR = 3_600_000;

async function dashboardWith(historyLimit: number): Promise<TestDashboard> {
  const id = randomUUID().slice(0, 8);
  const prefix = `bbdash-occ-${id}`;
  const queue = `${prefix}-q`;
  const scheduler = new SchedulerManager({
    prefix,
    role: 'client',
    defaultQueue: queue,
    historyLimit,
    logger: quietLogger(),
  });
  return startTestDashboard({ scheduler, prefix, queue });
}

/** `n` finished occurrences of `id`, an hour apart, the newest an hour ago. */
async function record(m: SchedulerManager, id: string, n: number, outcome: 'succeeded' | 'failed') {
  const last = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
  for (let i = 0; i < n; i++) {
    const counters = outcome === 'failed' ? (['runs', 'errors'] as const) : (['runs'] as const);
    await internalsOf(m).history.merge(id, last - i * HOUR, false, { kind: 'scheduled', outcome }, counters);
  }
}

async function page(t: TestDashboard, path: string): Promise<string> {
  const res = await fetch(`${t.url}${path}`, { headers: BEARER });
  expect(res.status).toBe(200);
  return res.text();
}

describe('the occurrences of a schedule page', () => {
  let t: TestDashboard | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('lists the newest 100 "of N kept", with a link to all that are kept', async () => {
    t = await dashboardWith(150);
    await t.scheduler.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'hourly' }).saved;
    await record(t.scheduler, 'hourly', 120, 'succeeded');
    const html = await page(t, '/schedules/hourly');
    expect(html).toContain('data-occurrences="100 of 120"');
    expect(html).toContain('Occurrences (newest first, 100 of 120 kept)');
    expect(html).toMatch(
      /data-older>The 20 older ones kept: <a href="[^"]*\/api\/schedules\/hourly\/runs\?limit=120"/,
    );
    expect(html).not.toContain('data-trimmed');
    const api = await t.api('GET', '/api/schedules/hourly/runs?limit=120');
    expect(api.body.items).toHaveLength(120);
  });

  it('says when the oldest were trimmed by historyLimit', async () => {
    t = await dashboardWith(5);
    await t.scheduler.schedule({ name: 'hourly' }, new IntervalTrigger(3600), { id: 'hourly' }).saved;
    await record(t.scheduler, 'hourly', 8, 'succeeded');
    const html = await page(t, '/schedules/hourly');
    expect(html).toContain('Occurrences (newest first, 5 of 5 kept)');
    expect(html).not.toContain('data-older');
    expect(html).toMatch(
      /data-trimmed>Older occurrences are not kept: each schedule keeps its newest 5 records/,
    );
  });
});

describe('the run totals of the schedules page', () => {
  let t: TestDashboard | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it("count a removed schedule's errors, and say so", async () => {
    t = await dashboardWith(100);
    await t.scheduler.schedule({ name: 'gone' }, new IntervalTrigger(3600), { id: 'gone' }).saved;
    await record(t.scheduler, 'gone', 2, 'failed');
    await t.scheduler.remove('gone');
    const html = await page(t, '/');
    expect(html).toMatch(/<b>2<\/b><span>errors<\/span>/);
    expect(html).toContain('No schedules yet.');
    expect(html).toMatch(/data-totals-note>[^<]*removed schedules included/);
  });
});
