import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { addBulkIsolated } from '../../src/scheduler/fire/add-bulk-isolated.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, testEnv } from './helpers.js';

describe('poison job options', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('a stored schedule whose job options BullMQ rejects is errored, and the healthy ones on its queue keep firing', async () => {
    env = testEnv('poison-opts');
    const client = env.manager({ role: 'client' });
    const every = () => new IntervalTrigger(0.2);
    for (const name of ['ok1', 'ok2', 'ok3', 'bad']) {
      await client.schedule({ queue: env.queue, name }, every()).saved;
    }
    // data written by an old release (no validation): a priority BullMQ refuses at addBulk
    const key = `{${env.prefix}}:bb:schedules`;
    const def = JSON.parse((await env.redis.hget(key, 'bad')) as string);
    await env.redis.hset(key, 'bad', JSON.stringify({ ...def, jobOptions: { priority: 3_000_000 } }));
    const m = env.manager();
    await m.start();
    const jobsOf = async (name: string) =>
      (await env.jobIds()).filter((id) => id.startsWith(`bb-${name}-`)).length;
    await waitUntil(async () => (await jobsOf('ok1')) >= 5 && (await jobsOf('ok3')) >= 5, 15_000);
    await waitUntil(async () => (await m.get('bad'))?.status === JobStatus.ERRORED, 10_000);
    await m.stop();
    const bad = await m.get('bad');
    expect(bad?.error?.reason).toContain('Priority should be between 0 and 2097151');
    expect(await jobsOf('bad')).toBe(0);
    expect(await jobsOf('ok2')).toBeGreaterThanOrEqual(4);
  });

  it.each([
    [{ priority: 3_000_000 }, 'jobOptions.priority'],
    [{ priority: 1.5 }, 'jobOptions.priority'],
    [{ sizeLimit: -1 }, 'jobOptions.sizeLimit'],
    [{ deduplication: {} }, 'jobOptions.deduplication.id'],
    [{ jobId: 'mine' }, 'jobOptions.jobId'],
    [{ delay: 1000 }, 'jobOptions.delay'],
    [{ repeat: { every: 1000 } }, 'jobOptions.repeat'],
    [{ removeOnComplete: 'yes' }, 'jobOptions.removeOnComplete'],
    [{ failParentOnFailure: true, removeDependencyOnFailure: true }, 'jobOptions'],
  ])('schedule() refuses job options BullMQ would reject: %j names %s', async (jobOptions, field) => {
    env = testEnv('opts-check');
    const m = env.manager({ role: 'client' });
    let caught: unknown;
    try {
      // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
      m.schedule({ name: 'x' }, new IntervalTrigger(60), { jobOptions: jobOptions as any });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ScheduleOptionsError);
    expect((caught as ScheduleOptionsError).field).toBe(field);
    expect(await env.redis.hexists(`{${env.prefix}}:bb:schedules`, 'x')).toBe(0);
  });

  it('valid job options are accepted as before', async () => {
    env = testEnv('opts-ok');
    const m = env.manager({ role: 'client' });
    const job = m.schedule({ name: 'y' }, new IntervalTrigger(60), {
      jobOptions: { priority: 2_097_151, lifo: true, removeOnComplete: { count: 10 }, sizeLimit: 1000 },
    });
    await job.saved;
    expect((await m.get('y'))?.def.jobOptions).toMatchObject({ priority: 2_097_151 });
  });

  it('a connection failure of addBulk is not taken for a poison occurrence: nothing is marked errored', async () => {
    env = testEnv('opts-conn');
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    await queue.waitUntilReady();
    await queue.close();
    const jobs = [1, 2].map((i) => ({ name: 'n', data: {}, opts: { jobId: `bb-a-${i}` } }));
    await expect(addBulkIsolated(queue, jobs)).rejects.toThrow();
  });

  it('one occurrence BullMQ refuses is isolated: the others of the same addBulk are added', async () => {
    env = testEnv('opts-isolate');
    const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const jobs = [
      { name: 'n', data: {}, opts: { jobId: 'bb-a-1' } },
      { name: 'n', data: {}, opts: { jobId: 'bb-b-1', priority: 3_000_000 } },
      { name: 'n', data: {}, opts: { jobId: 'bb-c-1' } },
    ];
    const refused = await addBulkIsolated(queue, jobs);
    await queue.close();
    expect([...refused.keys()]).toEqual([1]);
    expect(refused.get(1)?.message).toContain('Priority');
    expect((await env.jobIds()).sort()).toEqual(['bb-a-1', 'bb-c-1']);
  });
});
