import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { enqueuedRecords } from '../../src/store/reads/foreign-reads.js';
import { REDIS } from '../redis-url.js';

// The outcome follower's reconciliation reads, filtered in Redis (`enqueued-records-1`): of each
// schedule's newest records, only those still `enqueued` with a queue and a job id come back, with the
// facts it looks at; an earlier release's JSON record gives the facts its hash lacks.

describe('enqueuedRecords', () => {
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = new Redis(REDIS);
    prefix = `bbenq-${randomUUID().slice(0, 8)}`;
  });
  afterEach(async () => {
    const left = await redis.keys(`*${prefix}*`);
    if (left.length > 0) await redis.unlink(...left);
    await redis.quit();
  });

  /** A record hash with its index entry, as the completion writes one. */
  async function record(
    k: ReturnType<typeof keys>,
    id: string,
    field: string,
    facts: Record<string, string>,
  ) {
    await redis.zadd(k.runIndex(id), Number(field.replace(/^[mb]/, '')), field);
    if (Object.keys(facts).length > 0) await redis.hset(k.record(id, field), facts);
  }

  it("answers only each schedule's newest `depth` records still enqueued, newest first, with their facts", async () => {
    const k = keys(prefix, 4);
    const a = 'alpha';
    const b = 'beta';
    const enq = (t: number, more: Record<string, string> = {}) => ({
      outcome: 'enqueued',
      queue: 'q',
      jobId: `bb-x-${t}`,
      enqueuedAt: String(t + 5),
      kind: 'scheduled',
      ...more,
    });
    await record(k, a, '1000', enq(1000));
    await record(k, a, '2000', { ...enq(2000), outcome: 'succeeded', startedAt: '2001' });
    await record(k, a, '3000', { outcome: 'enqueued', jobId: 'bb-x-3000' }); // no queue: left out
    await record(k, a, 'm4000', enq(4000, { kind: 'manual' }));
    await record(k, a, '5000', { ...enq(5000), outcome: 'running' });
    // an earlier release's record: JSON in runs:<id>, its outcome since patched into a hash over it
    await record(k, b, '1000', {});
    await redis.hset(
      k.runs(b),
      '1000',
      JSON.stringify({ outcome: 'enqueued', queue: 'q/old', jobId: 'bb-y-1000', enqueuedAt: 1796655800123 }),
    );
    await record(k, b, '2000', { queue: 'q2' });
    await redis.hset(
      k.runs(b),
      '2000',
      JSON.stringify({ outcome: 'enqueued', queue: 'q', jobId: 'bb-y-2000' }),
    );
    await record(k, b, '3000', { outcome: 'succeeded' });
    await redis.hset(
      k.runs(b),
      '3000',
      JSON.stringify({ outcome: 'enqueued', queue: 'q', jobId: 'bb-y-3000' }),
    );

    const all = await enqueuedRecords(redis, k, [a, b, 'gamma'], 100);
    const byId = (id: string) => all.filter((r) => r.scheduleId === id);
    expect(byId(a)).toEqual([
      { scheduleId: a, field: 'm4000', queue: 'q', jobId: 'bb-x-4000', enqueuedAt: 4005, kind: 'manual' },
      { scheduleId: a, field: '1000', queue: 'q', jobId: 'bb-x-1000', enqueuedAt: 1005, kind: 'scheduled' },
    ]);
    expect(byId(b)).toEqual([
      { scheduleId: b, field: '2000', queue: 'q2', jobId: 'bb-y-2000' },
      { scheduleId: b, field: '1000', queue: 'q/old', jobId: 'bb-y-1000', enqueuedAt: 1796655800123 },
    ]);
    expect(all).toHaveLength(4);
    // the newest two of each: alpha's m4000 (the index orders by fire time) and none of beta's
    expect(await enqueuedRecords(redis, k, [a, b], 2)).toEqual([
      { scheduleId: a, field: 'm4000', queue: 'q', jobId: 'bb-x-4000', enqueuedAt: 4005, kind: 'manual' },
      { scheduleId: b, field: '2000', queue: 'q2', jobId: 'bb-y-2000' },
    ]);
  });

  it('reads many schedules in calls of a bounded number of records each', async () => {
    const k = keys(prefix, 1);
    const ids = Array.from({ length: 60 }, (_, i) => `s${i}`);
    for (const id of ids) {
      for (let t = 1; t <= 50; t++) {
        const facts: Record<string, string> =
          t % 10 === 0
            ? { outcome: 'enqueued', queue: 'q', jobId: `bb-${id}-${t}` }
            : { outcome: 'succeeded', queue: 'q', jobId: `bb-${id}-${t}` };
        await record(k, id, String(t), facts);
      }
    }
    const calls: number[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
      if (command.name === 'evalsha' || command.name === 'eval') calls.push(command.args.length - 5);
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof redis.sendCommand;
    const found = await enqueuedRecords(redis, k, ids, 50);
    expect(found).toHaveLength(60 * 5);
    expect(new Set(found.map((r) => r.scheduleId))).toEqual(new Set(ids));
    for (const r of found) expect(r.jobId).toBe(`bb-${r.scheduleId}-${r.field}`);
    // at most 1,000 records looked at a call: 20 schedules of 50 each
    expect(calls).toEqual([20, 20, 20]);
    expect(calls.reduce((x, y) => x + y, 0)).toBe(60);
  });
});
