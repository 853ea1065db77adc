// An overridden backfill's override, kept beside the ledger (`backfill-overrides:<id>`, includes/overrides):
// written once by backfill-take-11 with each fire time it takes naming it, read back by whoever enqueues
// (`overridesOf`), and gone with the last of its fire times, struck by an enqueue (owed-done-5) or given
// back by a pause (owed-release-3); a repeat strikes nothing twice; a backfill without one writes none.
import { afterEach, describe, expect, it } from 'vitest';
import { type OwedRun, owedMember } from '../../src/store/forms/owed-run.js';
import { BackfillLedger } from '../../src/store/runs/backfill-ledger.js';
import { row, StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(() => bed.cleanup());

const run = (fireAt: number): OwedRun => ({
  scheduleId: 's',
  fireAt,
  lane: 'backfill',
  overlap: 'bufferAll',
});

describe('backfill overrides beside the ledger', () => {
  it('kept while a fire time naming it is owed, read back, gone with the last one', async () => {
    bed = new StoreBed();
    const ledger = new BackfillLedger(bed.redis, bed.k);
    const now = await bed.now();
    // a schedule created after the three fire times: nothing judged them, a backfill runs them
    await bed.redis.hset(bed.k.schedules, 's', '{}');
    await bed.redis.hset(bed.k.state, 's', row('a', 0, '', now + 1000));
    const times = [now - 3000, now - 2000, now - 1000];
    const value = { names: ['data' as const], data: { n: 9 }, by: 'cli:ann@box' };
    const take = { overlap: 'bufferAll' as const, from: now - 4000, to: now, overrides: 'data' };
    const judged = await ledger.judge(
      's',
      times.map((fireAt) => ({ fireAt, withinMs: 60_000 })),
      { ...take, override: { id: 'o1', value } },
    );
    expect(judged?.verdicts).toEqual(['run', 'run', 'run']);
    const key = bed.k.backfillOverrides('s');
    expect(await bed.redis.hget(key, '#o1')).toBe('3');
    expect(await bed.redis.pttl(key)).toBeGreaterThan(0);
    const read = await ledger.overridesOf('s', [...times, now - 5000]);
    expect([...read.keys()]).toEqual(times); // a fire time no backfill overrode is absent
    for (const t of times) expect(read.get(t)).toEqual({ id: 'o1', value });

    // one given back (a pause), one enqueued: the override stays for the third
    await ledger.release('s', [run(times[0]!)]);
    const patch = { kind: 'backfill', outcome: 'enqueued', enqueuedAt: now } as const;
    await ledger.done('s', [{ run: run(times[1]!), patch }]);
    await ledger.done('s', [{ run: run(times[1]!), patch }]); // a repeat strikes nothing twice
    expect(await bed.redis.hget(key, '#o1')).toBe('1');
    expect([...(await ledger.overridesOf('s', times)).keys()]).toEqual([times[2]]);
    await ledger.done('s', [{ run: run(times[2]!), patch }]);
    expect(await bed.redis.exists(key)).toBe(0);
    expect(await bed.redis.zcard(bed.k.owedRuns)).toBe(0);

    // a backfill without an override keeps none
    const plain = await ledger.judge('s', [{ fireAt: now - 4000, withinMs: 60_000 }], take);
    expect(plain?.verdicts).toEqual(['run']);
    expect(await bed.redis.exists(key)).toBe(0);
    expect(await bed.redis.zscore(bed.k.owedRuns, owedMember(run(now - 4000)))).not.toBeNull();
  });
});
