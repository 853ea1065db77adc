// A retry owed its run (an attempt after one that started) waits for the slot ahead of newer
// occurrences: start-runs, through RunSlots, as the worker runtime asks it.
import { afterEach, describe, expect, it } from 'vitest';
import { RunSlots } from '../../src/store/runs/run-slots.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const skipOne = { mode: 'skip', cap: 1 } as const;
const running = { outcome: 'running' as const, attempts: 1 };
const skipped = { outcome: 'skipped' as const };

function slots() {
  bed = new StoreBed();
  const s = new RunSlots(bed.redis, bed.k, 10_000, 100);
  let fireAt = 1000;
  /** Start a run of schedule `s`: a fresh occurrence, or with `owedId` a retry owed its run. */
  const start = (leaseId: string, owedId?: string) =>
    s.start(
      { scheduleId: 's', fireAt: (fireAt += 1000), manual: false },
      skipOne,
      { leaseId, jobId: owedId ?? `job-${leaseId}`, owed: owedId !== undefined },
      running,
      skipped,
    );
  /** The run holding `leaseId` ends (its lease given back). */
  const release = (leaseId: string) => bed.redis.zrem(bed.k.lease('s'), leaseId);
  return { start, release };
}

describe('a retry owed its run', () => {
  it('claims the busy slot: newer occurrences are refused it, the retry gets it', async () => {
    const { start, release } = slots();
    expect(await start('newer-run')).toMatchObject({ status: 'started' });
    // The retry finds the slot busy: it waits, and claims the next free slot.
    expect(await start('retry-lease', 'job-1')).toMatchObject({ status: 'wait', live: 1 });
    expect(await bed.redis.zrange(bed.k.leaseOwed('s'), '0', '-1')).toEqual(['job-1']);
    await release('newer-run');
    // The slot is free, but owed: a fresh occurrence is refused it.
    expect(await start('fresh')).toMatchObject({ status: 'skipped', reason: 'overlap', live: 0 });
    expect(await start('retry-lease', 'job-1')).toMatchObject({ status: 'started' });
    expect(await bed.redis.zcard(bed.k.leaseOwed('s'))).toBe(0);
    await release('retry-lease');
    expect(await start('fresh-2')).toMatchObject({ status: 'started' });
  });

  it('two retries owed one slot do not block each other', async () => {
    const { start, release } = slots();
    await start('holder');
    expect(await start('a', 'job-a')).toMatchObject({ status: 'wait' });
    expect(await start('b', 'job-b')).toMatchObject({ status: 'wait' });
    await release('holder');
    expect(await start('b', 'job-b')).toMatchObject({ status: 'started' });
    expect(await start('a', 'job-a')).toMatchObject({ status: 'wait', live: 1 });
  });
});
