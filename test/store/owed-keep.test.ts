// owed-keep-1 (`BackfillLedger.keep`): before a backfill adds what it took, only the occurrences still
// owed to it at the time it was given are its own; one a replica's sweep took (re-timed) or enqueued
// (struck) while the backfill was stopped is not.
import { afterEach, describe, expect, it } from 'vitest';
import { type OwedRun, owedMember } from '../../src/store/forms/owed-run.js';
import { BackfillLedger } from '../../src/store/runs/backfill-ledger.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(() => bed.cleanup());

const run = (fireAt: number): OwedRun => ({
  scheduleId: 's',
  fireAt,
  lane: 'backfill',
  overlap: 'bufferAll',
});

describe('owed-keep-1', () => {
  it('keeps what is still owed at the time given (a lease more when that is sooner); the rest is no longer the taker’s', async () => {
    bed = new StoreBed();
    const ledger = new BackfillLedger(bed.redis, bed.k);
    const now = await bed.now();
    const owed = bed.k.owedRuns;
    // 1: still owed, time to spare; 2: still owed, its time passed (no sweep took it yet);
    // 3: taken by a sweep (given a new time); 4: enqueued by a sweep (struck)
    await bed.redis.zadd(owed, now + 60_000, owedMember(run(1)), now - 5, owedMember(run(2)));
    await bed.redis.zadd(owed, now + 900, owedMember(run(3)));
    const lost = await ledger.keep(
      's',
      [
        { run: run(1), owedBy: now + 60_000 },
        { run: run(2), owedBy: now - 5 },
        { run: run(3), owedBy: now - 100 },
        { run: run(4), owedBy: now - 200 },
      ],
      1000,
    );
    expect([...lost].map((r) => r.fireAt)).toEqual([3, 4]);
    expect(Number(await bed.redis.zscore(owed, owedMember(run(1))))).toBe(now + 60_000);
    expect(Number(await bed.redis.zscore(owed, owedMember(run(2))))).toBeGreaterThanOrEqual(now + 1000);
    expect(Number(await bed.redis.zscore(owed, owedMember(run(3))))).toBe(now + 900); // the sweep's, untouched
  });
});
