// Two deployments (prefixes) on one Redis, each with a schedule on its default queue, in the default
// configuration: each deployment's worker runs only its own jobs, none fails for want of a handler.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/index.js';
import { internalsOf, SchedulerManager } from '../../src/scheduler/index.js';
import { QUEUE_HOLD_MS } from '../../src/store/bullmq/queue-owner.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { deleteKeys } from '../dashboard/harness.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, silent } from './helpers.js';

const id = randomUUID().slice(0, 8);
const managers: SchedulerManager[] = [];
const workers: WorkerHandle[] = [];
const queues: Queue[] = [];

afterEach(async () => {
  const [ms, ws, qs] = [managers.splice(0), workers.splice(0), queues.splice(0)];
  await Promise.all(ws.map((w) => w.close({ graceMs: 1000 })));
  await Promise.all(ms.map((m) => m.stop()));
  await Promise.all([...ms.map((m) => m.close()), ...qs.map((q) => q.close())]);
  await deleteKeys([
    `{t-alpha-${id}}*`,
    `{t-beta-${id}}*`,
    `bull:t-alpha-${id}*`,
    `bull:t-beta-${id}*`,
    `bull:t-shared-${id}*`,
  ]);
});

/** A deployment in the default configuration but for its prefix: one schedule, every 100 ms. */
function deployment(name: 'alpha' | 'beta') {
  const m = new SchedulerManager({ prefix: `t-${name}-${id}`, connection: REDIS_URL, logger: silent });
  managers.push(m);
  let ran = 0;
  // a function schedule: its job name (`alpha-job`) has a handler in its own deployment only
  const jobName = `${name}-job`;
  const fn = {
    [jobName]: () => {
      ran++;
    },
  }[jobName]!;
  m.schedule(fn, new IntervalTrigger(0.1), { id: `${name}-every` });
  const queue = new Queue(internalsOf(m).options.defaultQueue, { connection: { url: REDIS_URL } });
  queues.push(queue);
  return {
    m,
    queue,
    ran: () => ran,
    async work() {
      const w = await createWorker(m, { logger: silent });
      workers.push(w);
      await w.ready();
    },
  };
}

describe('deployments sharing a Redis', () => {
  it('each prefix has its own default queue: neither worker takes the other’s jobs', async () => {
    const alpha = deployment('alpha');
    const beta = deployment('beta');
    expect(internalsOf(alpha.m).options.defaultQueue).toBe(`t-alpha-${id}`);
    expect(internalsOf(beta.m).options.defaultQueue).toBe(`t-beta-${id}`);

    // alpha works; beta only schedules: its job waits in its own queue (one at a time: backpressure;
    // staged ahead, the default, it stays in the delayed set until a worker of that queue promotes it),
    // alpha's worker never sees it
    await alpha.work();
    await alpha.m.start();
    await beta.m.start();
    const betaWaits = async () => (await beta.queue.getJobCountByTypes('wait', 'delayed')) >= 1;
    await waitUntil(async () => alpha.ran() >= 5 && (await betaWaits()), 20_000);
    expect(
      (await alpha.queue.getJobs(['completed', 'failed', 'active', 'wait'])).map((j) => j.name),
    ).not.toContain('beta-job');

    await beta.work();
    await waitUntil(() => beta.ran() >= 5, 20_000);
    for (const d of [alpha, beta]) {
      expect(await d.queue.getFailedCount()).toBe(0);
    }
  });

  it('a queue one deployment’s workers serve is refused to another’s workers and scheduler replicas, naming both', async () => {
    const shared = `t-shared-${id}`;
    const alpha = new SchedulerManager({ prefix: `t-alpha-${id}`, connection: REDIS_URL, logger: silent });
    const beta = new SchedulerManager({ prefix: `t-beta-${id}`, connection: REDIS_URL, logger: silent });
    managers.push(alpha, beta);
    alpha.handle('alpha-job', () => undefined, { queue: shared });
    // a code schedule (saved by start) and its handler
    beta.schedule({ 'beta-job': () => undefined }['beta-job'], new IntervalTrigger(60), {
      id: 'beta-every',
      queue: shared,
    });
    queues.push(new Queue(shared, { connection: { url: REDIS_URL } }));

    // before any bullbeat worker serves it, a queue is anyone's: beta's replica may enqueue onto it
    const first = await createWorker(alpha, { logger: silent });
    workers.push(first);
    await first.ready();
    const refused = {
      name: 'ConfigError',
      setting: 'BULLBEAT_PREFIX',
      message: expect.stringContaining(
        `queue "${shared}" is served by the workers of deployment "t-alpha-${id}" (bull:${shared}:bb:deployment)`,
      ),
    };
    // held while alpha's workers live, renewed by them: it lapses once the last of them is gone
    const hold = await internalsOf(alpha).redis.pttl(`bull:${shared}:bb:deployment`);
    expect(hold).toBeGreaterThan(0);
    expect(hold).toBeLessThanOrEqual(QUEUE_HOLD_MS);
    await expect(createWorker(beta, { logger: silent })).rejects.toMatchObject(refused);
    await expect(beta.start()).rejects.toMatchObject(refused);
    // refused before it wrote anything
    expect(await internalsOf(beta).redis.hexists(internalsOf(beta).keys.schedules, 'beta-every')).toBe(0);
    // alpha's own second worker is welcome
    const second = await createWorker(alpha, { logger: silent });
    workers.push(second);
    await second.ready();
  });
});
