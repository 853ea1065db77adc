// readRecords with `names` reads a few facts of many records (the outcome follower's reconciliation): the same
// facts readRecords reads whole, in both forms (this release's hash, an earlier release's JSON), merged
// the same way, and nothing else.
import { afterEach, describe, expect, it } from 'vitest';
import { readRecords } from '../../src/store/reads/record-reads.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const NAMES = ['outcome', 'queue', 'jobId', 'enqueuedAt', 'kind'] as const;

describe('readRecords, the facts named', () => {
  it('reads the named facts of each record, in both forms, as readRecords has them', async () => {
    bed = new StoreBed();
    const { redis, k } = bed;
    // this release's hash, with more facts than are asked for
    await redis.hset(k.record('s', '1000'), {
      outcome: 'enqueued',
      queue: 'q',
      jobId: 'bb-s-1000',
      enqueuedAt: '1001',
      replica: 'h:1',
      claimedAt: '990',
      c200: '1',
    });
    // an earlier release's JSON record only
    await redis.hset(
      k.runs('s'),
      '2000',
      JSON.stringify({ scheduleId: 's', fireAt: 2000, kind: 'scheduled', outcome: 'succeeded', queue: 'q' }),
    );
    // both forms: the JSON's outcome wins over an `enqueued` hash (mergeForms)
    await redis.hset(
      k.runs('s'),
      '3000',
      JSON.stringify({ scheduleId: 's', fireAt: 3000, kind: 'scheduled', outcome: 'failed' }),
    );
    await redis.hset(k.record('s', '3000'), { outcome: 'enqueued', queue: 'q', jobId: 'bb-s-3000' });
    const reads = [{ scheduleId: 's', fields: ['1000', '2000', '3000', 'm4000'] }];
    const facts = await readRecords(redis, k, reads, NAMES);
    const whole = await readRecords(redis, k, reads);
    expect(facts[0]).toEqual([
      {
        scheduleId: 's',
        fireAt: 1000,
        kind: 'scheduled',
        outcome: 'enqueued',
        queue: 'q',
        jobId: 'bb-s-1000',
        enqueuedAt: 1001,
      },
      whole[0]![1],
      { scheduleId: 's', fireAt: 3000, kind: 'scheduled', outcome: 'failed', queue: 'q', jobId: 'bb-s-3000' },
      null,
    ]);
    // each is the projection of the whole record on the facts asked for
    facts[0]!.forEach((r, i) => {
      const w = whole[0]![i];
      if (r === null) {
        expect(w).toBeNull();
        return;
      }
      for (const name of [...NAMES, 'scheduleId', 'fireAt'] as const) expect(r[name]).toEqual(w![name]);
    });
    expect(facts[0]![0]).not.toHaveProperty('replica');
  });
});
