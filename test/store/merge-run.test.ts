// The run record merge and the history trim, through RunHistory (merge-run-4.lua): the one rule.
import { afterEach, describe, expect, it } from 'vitest';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

describe('merge-run (RunHistory.merge)', () => {
  it('a manual run recorded enqueued after its worker started keeps the worker outcome', async () => {
    bed = new StoreBed();
    const h = new RunHistory(bed.redis, bed.k, 10);
    await h.merge('s', 1000, true, { kind: 'manual', outcome: 'succeeded', finishedAt: 1500 }, ['runs']);
    await h.merge('s', 1000, true, { kind: 'manual', outcome: 'enqueued', enqueuedAt: 1000, jobId: 'j' });
    const rec = await h.get('s', 1000, true);
    expect(rec?.outcome).toBe('succeeded');
    expect(rec).toMatchObject({ finishedAt: 1500, enqueuedAt: 1000, jobId: 'j' });
  });
});

describe('the one merge rule and trim rule', () => {
  it('a null removes a field; other fields merge; counters bump per schedule and in total', async () => {
    bed = new StoreBed();
    const h = new RunHistory(bed.redis, bed.k, 10);
    await h.merge('s', 1000, false, { kind: 'scheduled', outcome: 'running', error: 'x', attempts: 1 });
    await h.merge('s', 1000, false, { outcome: 'succeeded', error: null }, ['runs']);
    expect(await h.get('s', 1000)).toEqual({
      scheduleId: 's',
      fireAt: 1000,
      kind: 'scheduled',
      outcome: 'succeeded',
      attempts: 1,
    });
    expect(await h.counts('s')).toEqual({ runs: 1, errors: 0, skipped: 0, missed: 0, coalesced: 0 });
    expect((await h.totals()).runs).toBe(1);
  });

  it('the history keeps the newest limit records, over by less than limit / 10 before a cut back to limit', async () => {
    bed = new StoreBed();
    const h = new RunHistory(bed.redis, bed.k, 20);
    const sizes: number[] = [];
    for (let i = 1; i <= 45; i++) {
      await h.merge('s', i * 1000, false, { kind: 'scheduled', outcome: 'enqueued' });
      sizes.push(await bed.redis.zcard(bed.k.runIndex('s')));
    }
    expect(Math.max(...sizes)).toBe(21);
    expect(new Set(sizes.slice(20))).toEqual(new Set([20, 21]));
    const fields = (await bed.redis.zrange(bed.k.runIndex('s'), '0', '-1')).map(Number);
    expect(fields).toEqual(Array.from({ length: 21 }, (_, i) => (25 + i) * 1000));
    const kept = await Promise.all(
      Array.from({ length: 45 }, (_, i) => bed.redis.exists(bed.k.record('s', String((i + 1) * 1000)))),
    );
    expect(kept.reduce((a, b) => a + b, 0)).toBe(21);
    expect((await h.list('s')).map((r) => r.fireAt)[0]).toBe(45_000);
    expect((await h.list('s')).length).toBe(20);
  });
});
