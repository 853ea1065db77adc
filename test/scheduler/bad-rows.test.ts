import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { writeBadRows } from './bad-rows.js';
import { testEnv } from './helpers.js';

describe('a bad stored row never breaks a reader', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('list() and get() show each bad row as errored with the reason, and the good ones as usual', async () => {
    env = testEnv('bad-rows');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'good' }, new IntervalTrigger(60)).saved;
    const bad = await writeBadRows(env.redis, env.prefix, 'good');
    const all = await m.list();
    expect(all.map((j) => j.id).sort()).toEqual(['date-1e20', 'every-1e13', 'good', 'not-json']);
    const byId = new Map(all.map((j) => [j.id, j]));
    expect(byId.get('good')?.status).toBe(JobStatus.ACTIVE);
    for (const id of bad) {
      const job = byId.get(id);
      expect(job?.status, id).toBe(JobStatus.ERRORED);
      expect(job?.error?.reason, id).toBeTruthy();
      expect(() => JSON.stringify(job)).not.toThrow();
    }
    expect(byId.get('not-json')?.error?.reason).toContain('definition');
    expect(byId.get('date-1e20')?.error?.reason).toContain('out of range');
    expect(byId.get('every-1e13')?.error?.reason).toContain('out of range');
    expect((await m.get('not-json'))?.status).toBe(JobStatus.ERRORED);
    expect((await m.list({ search: 'e' })).length).toBeGreaterThan(0);
    expect(await internalsOf(m).queueNames()).toContain(env.queue);
    expect((await m.stats()).jobsTotal).toBe(4);
  });

  it('a scheduler that claims a row whose definition cannot be read marks it errored instead of retrying it forever', async () => {
    env = testEnv('bad-claim');
    const client = env.manager({ role: 'client' });
    await client.schedule({ name: 'good' }, new IntervalTrigger(60)).saved;
    const k = `{${env.prefix}}:bb`;
    await env.redis.hset(`${k}:schedules`, 'broken', '{"id":"broken"');
    await env.redis.hset(`${k}:state`, 'broken', (await env.redis.hget(`${k}:state`, 'good')) as string);
    await env.redis.zadd(`${k}:due`, 1, 'broken');
    const m = env.manager();
    const errored: string[] = [];
    m.on('errored', (e) => errored.push(e.scheduleId));
    await m.start();
    const deadline = Date.now() + 10_000;
    while (errored.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await m.stop();
    expect(errored).toEqual(['broken']);
    expect(await env.redis.zscore(`${k}:inflight`, 'broken')).toBeNull();
    expect((await m.get('broken'))?.status).toBe(JobStatus.ERRORED);
  });
});
