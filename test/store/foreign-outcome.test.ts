// foreign-outcome-5.lua through recordForeignOutcome: an outcome read from BullMQ is counted once.
import { afterEach, describe, expect, it } from 'vitest';
import { type ForeignOutcome, recordForeignOutcome } from '../../src/store/foreign-outcome-script.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const outcome = (fireAt: number, jobId = `j${fireAt}`): ForeignOutcome => ({
  scheduleId: 's',
  fireAt,
  field: String(fireAt),
  queue: 'q',
  jobId,
  outcome: 'succeeded',
  kind: 'scheduled',
});

/** A history of `n` records at fire times 1000, 2000, ... as the scheduler's completion leaves it. */
async function history(bed: StoreBed, n: number, outcomeName = 'succeeded') {
  await bed.redis.hset(bed.k.schedules, 's', '{}');
  for (let i = 1; i <= n; i++) {
    const at = i * 1000;
    await bed.redis.hset(bed.k.runs('s'), String(at), JSON.stringify({ fireAt: at, outcome: outcomeName }));
    await bed.redis.zadd(bed.k.runIndex('s'), at, String(at));
  }
}

describe('foreign-outcome', () => {
  it('an outcome older than the newest historyLimit records is not written nor counted, however often seen', async () => {
    bed = new StoreBed();
    // 21 records with a limit of 20: the completion trims with slack (limit / 10), so this is a kept shape.
    await history(bed, 21);
    for (let i = 0; i < 2; i++) {
      expect(await recordForeignOutcome(bed.redis, bed.k, 20, outcome(1500))).toBe(false);
    }
    expect(await bed.redis.hget(bed.k.counts('s'), 'runs')).toBeNull();
    expect(await bed.redis.hexists(bed.k.runs('s'), '1500')).toBe(0);
  });
});
