import { afterEach, describe, expect, it } from 'vitest';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { testEnv } from './helpers.js';

describe('persistence', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('upserts code schedules: a changed expression updates in place, without a duplicate', async () => {
    env = testEnv('upsert');
    const a = env.manager({ role: 'client' });
    a.cron('0 9 * * *', { id: 'report' })(async function report() {});
    await a.start();
    await a.stop();
    const before = await env.manager({ role: 'client' }).get('report');
    expect(before?.toJSON().spec).toEqual({ type: 'cron', expression: '0 9 * * *' });
    const firstNext = before?.nextRunTime;

    // Redeploy with a new expression.
    const b = env.manager({ role: 'client' });
    b.cron('30 10 * * *', { id: 'report' })(async function report() {});
    await b.start();
    const jobs = await b.list();
    expect(jobs.map((j) => j.id)).toEqual(['report']);
    const after = jobs[0]!;
    expect(after.toJSON().spec).toEqual({ type: 'cron', expression: '30 10 * * *' });
    expect(after.nextRunTime).not.toBe(firstNext);
    expect(new Date(after.nextRunTime!).getUTCMinutes()).toBe(30);
    expect(after.createdAt).toBe(before?.createdAt);
    expect(await env.redis.hlen(`{${env.prefix}}:bb:schedules`)).toBe(1);

    // Same definition again: nothing changes.
    const c = env.manager({ role: 'client' });
    c.cron('30 10 * * *', { id: 'report' })(async function report() {});
    await c.start();
    expect((await c.get('report'))?.nextRunTime).toBe(after.nextRunTime);
  });

  it('pauses a code schedule that disappeared from the code (orphaned), and restores it when it comes back', async () => {
    env = testEnv('orphan');
    const a = env.manager();
    a.every(3600)(async function hourly() {});
    a.every(60)(async function minutely() {});
    await a.start();
    await a.stop();

    const b = env.manager();
    b.every(3600)(async function hourly() {});
    await b.start();
    const gone = await b.get('minutely');
    expect(gone?.status).toBe(JobStatus.PAUSED);
    expect(gone?.toJSON().orphaned).toBe(true);
    expect(gone?.nextRunTime).toBeNull();
    expect(await env.redis.zscore(`{${env.prefix}}:bb:due`, 'minutely')).toBeNull();
    expect((await b.get('hourly'))?.status).toBe(JobStatus.ACTIVE);
    await b.stop();

    const c = env.manager();
    c.every(3600)(async function hourly() {});
    c.every(60)(async function minutely() {});
    await c.start();
    const back = await c.get('minutely');
    expect(back?.status).toBe(JobStatus.ACTIVE);
    expect(back?.toJSON().orphaned).toBe(false);
    expect(back?.nextRunTime).toBeGreaterThan(0);
  });

  it('a runtime schedule (built-in trigger, queue target) survives a restart of every process', async () => {
    env = testEnv('runtime');
    const web = env.manager({ role: 'client' });
    const job = web.schedule({ name: 'external-task' }, new IntervalTrigger(0.2), {
      id: 'ext',
      data: { x: 1 },
    });
    await job.saved;
    await web.close();

    // A scheduler that has no code for it at all fires it (it is a runtime schedule, never orphaned).
    const s = env.manager();
    const fired: number[] = [];
    s.on('fired', (e) => e.scheduleId === 'ext' && fired.push(e.fireAt));
    await s.start();
    await waitUntil(() => fired.length >= 3);
    await s.stop();
    const ids = await env.jobIds();
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids.every((id) => id.startsWith('bb-ext-'))).toBe(true);
    const stored = await env.manager({ role: 'client' }).get('ext');
    expect(stored?.toJSON().source).toBe('runtime');
    expect(stored?.toJSON().spec).toEqual({ type: 'interval', seconds: 0.2 });
  });

  it('lists 2,000 schedules with paging and search', async () => {
    env = testEnv('list');
    const m = env.manager({ role: 'client' });
    for (let i = 0; i < 2000; i++) {
      m.schedule({ name: 'n' }, new CronTrigger('0 0 * * *'), { id: `s-${String(i).padStart(4, '0')}` });
    }
    await m.start();
    const page = await m.listPage({ offset: 10, limit: 5 });
    expect(page.total).toBe(2000);
    expect(page.items.map((j) => j.id)).toEqual(['s-0010', 's-0011', 's-0012', 's-0013', 's-0014']);
    const found = await m.listPage({ search: 'S-019' });
    expect(found.total).toBe(10);
    expect((await m.list(JobStatus.PAUSED)).length).toBe(0);
    expect((await m.stats()).jobsTotal).toBe(2000);
  });
});
