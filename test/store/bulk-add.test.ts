import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addBulkIsolated } from '../../src/scheduler/fire/add-bulk-isolated.js';
import { AddTemplate } from '../../src/store/bullmq/add-template.js';
import { addJobsInOneCall, canAddInOneCall } from '../../src/store/bullmq/bulk-add.js';
import { REDIS } from '../redis-url.js';

// A queue's jobs added in one script call (BullMQ's own add scripts in a loop) leave Redis as
// `queue.addBulk` of the same jobs does: the same job hashes, lists, sets, counters and events.

const job = (id: string, opts: Record<string, unknown> = {}, data: unknown = { scheduleId: id, n: 1 }) => ({
  name: 'report',
  data,
  opts: { jobId: id, attempts: 3, removeOnComplete: { count: 100 }, ...opts },
});

describe('addJobsInOneCall', () => {
  let redis: Redis;
  let prefix: string;
  const queues: Queue[] = [];
  const queue = (name: string, opts: Record<string, unknown> = {}) => {
    const q = new Queue(name, { connection: redis, prefix, ...opts });
    queues.push(q);
    return q;
  };

  beforeEach(() => {
    redis = new Redis(REDIS);
    prefix = `bbadd-${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
    const left = await redis.keys(`${prefix}:*`);
    if (left.length > 0) await redis.unlink(...left);
    await redis.quit();
  });

  /** Everything BullMQ keeps for `name`: each key's content, add times and event ids left out. */
  async function stateOf(name: string): Promise<Record<string, unknown>> {
    const base = `${prefix}:${name}:`;
    const out: Record<string, unknown> = {};
    for (const key of (await redis.keys(`${base}*`)).sort()) {
      const short = key.slice(base.length);
      const type = await redis.type(key);
      if (type === 'hash') {
        const h = await redis.hgetall(key);
        delete h.timestamp;
        out[short] = h;
      } else if (type === 'list') out[short] = await redis.lrange(key, 0, -1);
      else if (type === 'zset') {
        const z = await redis.zrange(key, '0', '-1', 'WITHSCORES');
        // a delayed job's score carries its add time (its due time, times 4096)
        out[short] = short === 'delayed' ? z.filter((_, i) => i % 2 === 0) : z;
      } else if (type === 'stream')
        out[short] = (await redis.xrange(key, '-', '+')).map(([, f]) => f.join(' '));
      else if (type === 'string') out[short] = await redis.get(key);
      else out[short] = type;
    }
    // an add time (epoch ms, 13 digits) differs between two adds of the same job
    return JSON.parse(JSON.stringify(out).replace(/\b\d{13}\b/g, 'T'));
  }

  it('adds standard, delayed, prioritized and LIFO jobs exactly as addBulk does', async () => {
    const jobs = [
      job('a-1'),
      job('a-2', { delay: 60_000 }),
      job('a-3', { priority: 7 }),
      job('a-4', { lifo: true }),
      job('a-5', {}, { big: 'x'.repeat(2000), nested: { list: [1, 2, 3] } }),
    ];
    const mine = queue('mine');
    const theirs = queue('theirs');
    expect(canAddInOneCall(mine)).toBe(true);
    expect(await addJobsInOneCall(mine, jobs)).toEqual(['a-1', 'a-2', 'a-3', 'a-4', 'a-5']);
    await theirs.addBulk(jobs);
    const [a, b] = [await stateOf('mine'), await stateOf('theirs')];
    expect(Object.keys(a)).toEqual(
      expect.arrayContaining(['a-1', 'wait', 'delayed', 'prioritized', 'events']),
    );
    expect(a).toEqual(b);
  });

  it("one schedule's jobs (`like`): from the third, made from a template of BullMQ's own; Redis holds what addBulk leaves", async () => {
    const made = vi.spyOn(AddTemplate.prototype, 'make');
    const mine = queue('mine', { defaultJobOptions: { removeOnFail: { age: 60 } } });
    const theirs = queue('theirs', { defaultJobOptions: { removeOnFail: { age: 60 } } });
    // three schedules' options, each one object: plain, delayed by its options, prioritized
    const shapes = [
      { attempts: 3, removeOnComplete: { count: 100 } },
      { attempts: 1, delay: 60_000, backoff: { type: 'fixed', delay: 50 } },
      { priority: 4, lifo: false },
    ];
    const round = (r: number) =>
      shapes.map((shape, s) => ({
        name: `tick${s}`,
        data: { scheduleId: `s${s}`, fireAt: 1796655800000 + r * 1000, args: [r, 'é'] },
        // the fire time's 13 digits: one id length per schedule
        opts: { ...shape, jobId: `bb-s${s}-${1796655800000 + r * 1000}` },
        like: shape,
      }));
    const before = Date.now();
    for (let r = 0; r < 5; r++) {
      const jobs = round(r);
      expect(await addJobsInOneCall(mine, jobs)).toEqual(jobs.map((j) => j.opts.jobId));
      await theirs.addBulk(jobs.map(({ name, data, opts }) => ({ name, data, opts })));
      await new Promise((resolve) => setTimeout(resolve, 2)); // another timestamp for the next round
    }
    const after = Date.now();
    // two jobs of each schedule built by BullMQ, the next three made: 9 of 15
    expect(made.mock.results.filter((r) => r.value !== undefined)).toHaveLength(9);
    expect(await stateOf('mine')).toEqual(await stateOf('theirs'));
    for (const j of await mine.getJobs(['wait', 'delayed', 'prioritized'])) {
      expect(j.timestamp).toBeGreaterThanOrEqual(before);
      expect(j.timestamp).toBeLessThanOrEqual(after);
    }
    // an id of another length is BullMQ's to build, and is added as addBulk adds it
    const other = { ...round(5)[0]!, opts: { ...shapes[0]!, jobId: 'bb-s0-17966558' }, like: shapes[0]! };
    made.mockClear();
    expect(await addJobsInOneCall(mine, [other])).toEqual(['bb-s0-17966558']);
    expect(made.mock.results.map((r) => r.value)).toEqual([undefined]);
    made.mockRestore();
  });

  it("staged jobs (their timestamp and delay set): a template per delay's packed width; Redis holds what addBulk leaves, scores included", async () => {
    const made = vi.spyOn(AddTemplate.prototype, 'make');
    const mine = queue('mine');
    const theirs = queue('theirs');
    const like = { attempts: 2, removeOnComplete: { age: 5 } };
    // delays of each packed width (fixint, uint8, uint16, uint32), five jobs each, as stagedJobOptions sets them
    const widths = [
      [5, 17, 100, 101, 127],
      [128, 129, 200, 254, 255],
      [256, 999, 1000, 30_000, 65_535],
      [65_536, 70_000, 86_400_000, 100_000_000, 2 ** 32 - 1],
    ];
    const jobs = widths.flat().map((delay, i) => {
      const timestamp = 1796655800000 + i * 7;
      const fireAt = timestamp + delay;
      return {
        name: 'tick',
        data: { scheduleId: 's1', fireAt },
        opts: { ...like, jobId: `bb-s1-${String(fireAt).padStart(16, '0')}`, timestamp, delay },
        like,
      };
    });
    for (const j of jobs) {
      expect(await addJobsInOneCall(mine, [j])).toEqual([j.opts.jobId]);
      await theirs.addBulk([{ name: j.name, data: j.data, opts: j.opts }]);
    }
    // per width: the first built by BullMQ (its template proven at once on a second job BullMQ builds
    // and nothing sends), the next four made: 16 of 20
    expect(made.mock.results.filter((r) => r.value !== undefined)).toHaveLength(16);
    expect(await stateOf('mine')).toEqual(await stateOf('theirs'));
    const scores = (name: string) => redis.zrange(`${prefix}:${name}:delayed`, '0', '-1', 'WITHSCORES');
    expect(await scores('mine')).toEqual(await scores('theirs'));
    for (const j of jobs) {
      const h = await redis.hmget(`${prefix}:mine:${j.opts.jobId}`, 'timestamp', 'delay', 'opts');
      expect(h.slice(0, 2)).toEqual([String(j.opts.timestamp), String(j.opts.delay)]);
      expect(JSON.parse(h[2]!)).toMatchObject({ delay: j.opts.delay, timestamp: j.opts.timestamp });
    }
    made.mockRestore();
  });

  it('a staged template that cannot be made (an id of multi-byte characters) is refused once: BullMQ builds each job, once', async () => {
    const learnt = vi.spyOn(AddTemplate.prototype, 'learn');
    const made = vi.spyOn(AddTemplate.prototype, 'make');
    const mine = queue('mine');
    const like = { attempts: 1 };
    const jobs = [300, 301, 302, 303, 304].map((delay, i) => ({
      name: 'tick',
      data: { n: i },
      opts: { ...like, jobId: `bb-→-${1796655800000 + i}`, timestamp: 1796655799000 + i, delay },
      like,
    }));
    for (const j of jobs) expect(await addJobsInOneCall(mine, [j])).toEqual([j.opts.jobId]);
    // the first job and the second BullMQ built to prove the template; none after it was refused
    expect(learnt).toHaveBeenCalledTimes(2);
    expect(made).not.toHaveBeenCalled();
    learnt.mockRestore();
    made.mockRestore();
  });

  it('answers an existing job with its id and adds nothing twice, as BullMQ does', async () => {
    const mine = queue('mine');
    const theirs = queue('theirs');
    for (const q of [mine, theirs]) {
      const add = (js: ReturnType<typeof job>[]) =>
        q === mine ? addJobsInOneCall(q, js) : q.addBulk(js).then((r) => r.map((j) => j.id));
      expect(await add([job('d-1'), job('d-2')])).toEqual(['d-1', 'd-2']);
      expect(await add([job('d-2'), job('d-3')])).toEqual(['d-2', 'd-3']);
    }
    expect(await mine.getJobCounts('wait')).toEqual({ wait: 3 });
    expect(await stateOf('mine')).toEqual(await stateOf('theirs'));
  });

  it("refuses a job BullMQ's checks refuse, with BullMQ's message, and adds the others", async () => {
    const mine = queue('mine');
    const answers = await addJobsInOneCall(mine, [
      job('r-1'),
      job('r-2', { priority: 3_000_000 }),
      job('3'),
      job('r:4'),
      job('r-5'),
    ]);
    expect(answers[0]).toBe('r-1');
    expect(answers[4]).toBe('r-5');
    expect((answers[1] as Error).message).toContain('Priority should be between 0 and');
    expect((answers[2] as Error).message).toBe('Custom Id cannot be integers');
    expect((answers[3] as Error).message).toBe('Custom Id cannot contain :');
    expect(await mine.getWaiting()).toHaveLength(2);
  });

  it("refuses data over the queue job's sizeLimit alone", async () => {
    const mine = queue('mine');
    const answers = await addJobsInOneCall(mine, [job('s-1'), job('s-2', { sizeLimit: 10 })]);
    expect(answers[0]).toBe('s-1');
    expect((answers[1] as Error).message).toContain('exceeds the limit 10 bytes');
  });

  it("takes the queue's default job options under each job's own, as addBulk does", async () => {
    const defaults = { defaultJobOptions: { attempts: 9, backoff: { type: 'fixed', delay: 50 } } };
    const mine = queue('mine', defaults);
    const theirs = queue('theirs', defaults);
    const jobs = [job('o-1', { attempts: 2 }), { name: 'n', data: {}, opts: { jobId: 'o-2' } }];
    await addJobsInOneCall(mine, jobs);
    await theirs.addBulk(jobs);
    expect(await stateOf('mine')).toEqual(await stateOf('theirs'));
    expect((await mine.getJob('o-2'))?.opts.attempts).toBe(9);
  });

  it('a Redis error in the call rejects it; addBulkIsolated then adds each job alone and blames none on the connection', async () => {
    const mine = queue('mine');
    await mine.waitUntilReady();
    // the second job's key holds a string: BullMQ's script fails on it (WRONGTYPE), the call with it
    await redis.set(`${prefix}:mine:e-2`, 'not a job');
    const jobs = [job('e-1'), job('e-2'), job('e-3')];
    await expect(addJobsInOneCall(mine, jobs)).rejects.toThrow(/WRONGTYPE/);
    const refused = await addBulkIsolated(mine, jobs);
    expect([...refused.keys()]).toEqual([1]);
    expect(refused.get(1)?.message).toMatch(/WRONGTYPE/);
    expect((await mine.getWaiting()).map((j) => j.id).sort()).toEqual(['e-1', 'e-3']);
  });

  it('is not used for a queue with BullMQ telemetry (addBulk makes its spans)', async () => {
    const traced = new Queue('traced', {
      connection: REDIS,
      prefix,
      telemetry: { tracer: {}, contextManager: {} } as never,
    });
    expect(canAddInOneCall(traced)).toBe(false);
    await traced.disconnect();
  });
});
