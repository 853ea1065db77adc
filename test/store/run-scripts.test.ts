// The run path's scripts on their own: start-runs hands out increasing fencing tokens and applies the
// slot rule; finish-runs refuses an outcome whose token is not the record's (writing and counting
// nothing, still giving the lease back) and accepts one on a record of the previous release (no token).
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleStore } from '../../src/store/deployment/schedule-store.js';
import { decodeDefinition } from '../../src/store/forms/schedule-definition.js';
import { keys } from '../../src/store/keys/keys.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { RunSlots } from '../../src/store/runs/run-slots.js';
import { redisNow } from '../scheduler/helpers.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const run = { scheduleId: 's', fireAt: 1000, manual: false };
const noPause = { afterFailures: 0, note: '', at: 0 };
const running = { outcome: 'running' as const, attempts: 1, jobId: 'j' };
const skipped = { outcome: 'skipped' as const };

describe('start-runs / finish-runs', () => {
  it('a newer run of the occurrence fences the older one off: its outcome is neither written nor counted', async () => {
    bed = new StoreBed();
    const slots = new RunSlots(bed.redis, bed.k, 10_000, 100);
    const history = new RunHistory(bed.redis, bed.k);
    const older = await slots.start(
      run,
      { mode: 'skip', cap: 1 },
      { leaseId: 'old', jobId: 'j' },
      running,
      skipped,
    );
    expect(older).toMatchObject({ status: 'started', fencingToken: 1 });
    // Its lease lapses (a stalled worker); the re-delivered attempt takes the slot with token 2.
    await bed.redis.zadd(bed.k.lease('s'), 1, 'old');
    const newer = await slots.start(
      run,
      { mode: 'skip', cap: 1 },
      { leaseId: 'new', jobId: 'j' },
      { ...running, attempts: 2 },
      skipped,
    );
    expect(newer).toMatchObject({ status: 'started', fencingToken: 2 });

    const stale = await slots.finish(run, 'old', 1, { outcome: 'succeeded' }, ['runs'], 'ok', noPause);
    expect(stale.written).toBe(false);
    expect(await history.get('s', 1000)).toMatchObject({ outcome: 'running', attempts: 2, fencingToken: 2 });
    expect(await history.counts('s')).toMatchObject({ runs: 0 });
    expect(await bed.redis.zscore(bed.k.lease('s'), 'new')).not.toBeNull(); // the newer lease is untouched

    const fresh = await slots.finish(run, 'new', 2, { outcome: 'succeeded' }, ['runs'], 'ok', noPause);
    expect(fresh.written).toBe(true);
    expect(await history.get('s', 1000)).toMatchObject({ outcome: 'succeeded', fencingToken: 2 });
    expect(await history.counts('s')).toMatchObject({ runs: 1 });
    expect(await bed.redis.exists(bed.k.lease('s'))).toBe(0);
  });

  it('a run alone in its slot finishes without a fencing read: a record it creates is indexed, one that was there is not indexed twice', async () => {
    bed = new StoreBed();
    const slots = new RunSlots(bed.redis, bed.k, 10_000, 100);
    const history = new RunHistory(bed.redis, bed.k);
    // written behind: the start writes no record; the job was added by hand (no enqueued record)
    const bare = { ...run, fireAt: 2000 };
    const one = { mode: 'skip' as const, cap: 1 };
    const started = await slots.start(
      bare,
      one,
      { leaseId: 'a', jobId: 'j', runningBehind: true },
      running,
      skipped,
    );
    expect(started).toMatchObject({ status: 'started', fencingToken: 1 });
    expect(await bed.redis.exists(bed.k.record('s', '2000'))).toBe(0);
    const done = await slots.finish(
      bare,
      'a',
      1,
      { ...running, outcome: 'succeeded', fencingToken: 1 },
      ['runs'],
      'ok',
      noPause,
      one,
    );
    expect(done.written).toBe(true);
    expect(await bed.redis.zscore(bed.k.runIndex('s'), '2000')).toBe('2000');
    expect(await history.get('s', 2000)).toMatchObject({ outcome: 'succeeded', fencingToken: 1, jobId: 'j' });

    // an occurrence with its enqueued record (indexed by whoever wrote it): the outcome goes into it
    const known = { ...run, fireAt: 3000 };
    await bed.redis.hset(bed.k.record('s', '3000'), 'outcome', 'enqueued', 'jobId', 'k');
    await bed.redis.zadd(bed.k.runIndex('s'), 3000, '3000');
    await slots.start(
      known,
      one,
      { leaseId: 'b', jobId: 'k', runningBehind: true, firstDelivery: true },
      running,
      skipped,
    );
    await slots.finish(
      known,
      'b',
      2,
      { outcome: 'succeeded', fencingToken: 2 },
      ['runs'],
      'ok',
      noPause,
      one,
    );
    expect(await history.get('s', 3000)).toMatchObject({ outcome: 'succeeded', fencingToken: 2, jobId: 'k' });
    expect(await bed.redis.zcard(bed.k.runIndex('s'))).toBe(2);
    expect(await bed.redis.exists(bed.k.lease('s'))).toBe(0);
  });

  it('the fencing token keeps rising across a remove and a re-creation of the same id: the old run stays fenced off', async () => {
    bed = new StoreBed();
    const slots = new RunSlots(bed.redis, bed.k, 10_000, 100);
    const store = new ScheduleStore(bed.redis, bed.k, 100);
    const history = new RunHistory(bed.redis, bed.k);
    const { def } = decodeDefinition(
      's',
      '{"name":"s","queue":"q","trigger":{"type":"interval","seconds":60}}',
    );
    const create = async () => store.upsert(def, 'fp', 5000, await bed.now());
    const start = (leaseId: string) =>
      slots.start(run, { mode: 'skip', cap: 1 }, { leaseId, jobId: 'j' }, running, skipped);
    expect(await create()).toBe('created');
    expect(await start('a')).toMatchObject({ status: 'started', fencingToken: 1 });
    await bed.redis.zadd(bed.k.lease('s'), 1, 'a'); // lapsed
    expect(await start('b')).toMatchObject({ status: 'started', fencingToken: 2 });

    // Removed while run `b` (token 2) is under way, then created again under the same id, twice.
    for (const [i, leaseId] of ['c', 'd'].entries()) {
      expect(await store.remove('s')).toBe(true);
      expect(await create()).toBe('created');
      await bed.redis.del(bed.k.lease('s'));
      expect(await start(leaseId), `re-creation ${i + 1}`).toMatchObject({
        status: 'started',
        fencingToken: 3 + i,
      });
    }

    // The run of the removed schedule ends: the new schedule's record is not its to write.
    const stale = await slots.finish(run, 'b', 2, { outcome: 'succeeded' }, ['runs'], 'ok', noPause);
    expect(stale.written).toBe(false);
    expect(await history.get('s', 1000)).toMatchObject({ outcome: 'running', fencingToken: 4 });
    expect(await history.counts('s')).toMatchObject({ runs: 0 });
  });

  it('a record of the previous release (no token) takes the outcome; skip refuses a second live run', async () => {
    bed = new StoreBed();
    const slots = new RunSlots(bed.redis, bed.k, 10_000, 100);
    const history = new RunHistory(bed.redis, bed.k);
    await history.merge('s', 1000, false, { outcome: 'running', jobId: 'j' });
    const done = await slots.finish(
      run,
      undefined,
      7,
      { outcome: 'failed', error: 'x' },
      ['runs', 'errors'],
      'failed',
      noPause,
    );
    expect(done.written).toBe(true);
    expect(await history.get('s', 1000)).toMatchObject({ outcome: 'failed', error: 'x' });

    const a = { ...run, fireAt: 2000 };
    const b = { ...run, fireAt: 3000 };
    expect(
      await slots.start(a, { mode: 'skip', cap: 1 }, { leaseId: 'a', jobId: 'ja' }, running, skipped),
    ).toMatchObject({ status: 'started' });
    const before = await redisNow(bed.redis);
    const skip = await slots.start(b, { mode: 'skip', cap: 1 }, { leaseId: 'b', jobId: 'jb' }, running, {
      ...skipped,
      finishedAt: 1, // the caller's clock: replaced
    });
    const after = await redisNow(bed.redis);
    expect(skip).toEqual({ status: 'skipped', live: 1, reason: 'overlap', at: expect.any(Number) });
    // the record's instant is the script's Redis TIME, whatever the caller's patch said
    const at = (skip as { at: number }).at;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(await history.get('s', 3000)).toMatchObject({
      outcome: 'skipped',
      reason: 'overlap',
      finishedAt: at,
    });
    expect(await history.counts('s')).toMatchObject({ skipped: 1 });
    expect(await history.totals()).toMatchObject({ runs: 1, errors: 1, skipped: 1 });
  });

  it('a lease set made by a start expires by itself; lapsed leases and owed claims count for nothing', async () => {
    bed = new StoreBed();
    const slots = new RunSlots(bed.redis, bed.k, 10_000, 100);
    const a = { ...run, fireAt: 2000 };
    expect(
      await slots.start(a, { mode: 'skip', cap: 1 }, { leaseId: 'a', jobId: 'ja' }, running, skipped),
    ).toMatchObject({ status: 'started', live: 0 });
    const ttl = await bed.redis.pttl(bed.k.lease('s'));
    expect(ttl).toBeGreaterThan(10_000); // twice the lease's ttl, set on the new set
    expect(ttl).toBeLessThanOrEqual(20_000);
    // the run's worker died: its lease lapsed, and so did a retry's claim on the slot
    await bed.redis.zadd(bed.k.lease('s'), 1, 'a');
    await bed.redis.zadd(bed.k.leaseOwed('s'), 1, 'job-gone');
    const b = { ...run, fireAt: 3000 };
    expect(
      await slots.start(b, { mode: 'skip', cap: 1 }, { leaseId: 'b', jobId: 'jb' }, running, skipped),
    ).toMatchObject({ status: 'started', live: 0 });
    expect(await bed.redis.zrange(bed.k.lease('s'), '0', '-1')).toEqual(['b']);
    expect(await bed.redis.exists(bed.k.leaseOwed('s'))).toBe(0);
    // a live lease counts: the next occurrence is skipped, the live one reported
    const c = { ...run, fireAt: 4000 };
    expect(
      await slots.start(c, { mode: 'skip', cap: 1 }, { leaseId: 'c', jobId: 'jc' }, running, skipped),
    ).toMatchObject({ status: 'skipped', live: 1 });
  });

  it('runs that start before their enqueued record keep the history bounded: checked every slack-th start', async () => {
    bed = new StoreBed();
    const limit = 20; // slack 2
    const slots = new RunSlots(bed.redis, bed.k, 10_000, limit);
    const history = new RunHistory(bed.redis, bed.k, limit);
    const sizes: number[] = [];
    for (let n = 1; n <= 45; n++) {
      const r = { ...run, fireAt: n * 1000 };
      const started = await slots.start(
        r,
        { mode: 'none', cap: 1 },
        { leaseId: `l${n}`, jobId: `j${n}` },
        running,
        skipped,
      );
      expect(started).toMatchObject({ status: 'started', fencingToken: n });
      await slots.finish(r, undefined, n, { outcome: 'succeeded' }, ['runs'], 'ok', noPause, {
        mode: 'none',
        cap: 0,
      });
      sizes.push(await bed.redis.zcard(bed.k.runIndex('s')));
    }
    // cut back to exactly `limit` at a check, never 2 slack over it, and it was cut
    expect(Math.max(...sizes)).toBeLessThan(limit + 2 * 2);
    expect(sizes).toContain(limit);
    const kept = await history.list('s');
    expect(kept.map((x) => x.fireAt)).toEqual(Array.from({ length: limit }, (_, j) => (45 - j) * 1000));
    // the cut records' hashes went with their index entries
    expect(await bed.redis.exists(bed.k.record('s', '1000'))).toBe(0);
    expect(await history.counts('s')).toMatchObject({ runs: 45 });
  });

  it('runs starting and finishing together go in batches per partition, under the names keys.ts gives, one failing alone', async () => {
    bed = new StoreBed();
    const k = keys(bed.prefix, 4); // partitioned keys work on a standalone Redis too
    const slots = new RunSlots(bed.redis, k, 10_000, 100);
    const history = new RunHistory(bed.redis, k);
    const ids = Array.from({ length: 40 }, (_, i) => `p${i}`);
    // a run whose step fails in the script: its counters hash is a string (WRONGTYPE on its token)
    await bed.redis.set(k.counts('p7'), 'not a hash');
    const runOf = (id: string) => ({ scheduleId: id, fireAt: 2000, manual: false });
    const starts = await Promise.allSettled(
      ids.map((id) =>
        slots.start(
          runOf(id),
          { mode: 'skip', cap: 1 },
          { leaseId: `l-${id}`, jobId: `j-${id}` },
          running,
          skipped,
        ),
      ),
    );
    expect(starts[7]).toMatchObject({ status: 'rejected' });
    expect(String((starts[7] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    for (const [i, id] of ids.entries()) {
      if (i === 7) continue;
      expect(starts[i]).toMatchObject({ status: 'fulfilled', value: { status: 'started', fencingToken: 1 } });
      expect(await bed.redis.zscore(k.lease(id), `l-${id}`)).not.toBeNull();
      expect(await history.get(id, 2000)).toMatchObject({ outcome: 'running', fencingToken: 1 });
    }
    expect(new Set(ids.map((id) => k.partitionOf(id))).size).toBeGreaterThan(1);

    const done = ids.filter((_, i) => i !== 7);
    const finishes = await Promise.all(
      done.map((id) =>
        slots.finish(runOf(id), `l-${id}`, 1, { outcome: 'succeeded' }, ['runs'], 'ok', noPause),
      ),
    );
    expect(finishes.every((f) => f.written)).toBe(true);
    for (const id of done) {
      expect(await history.get(id, 2000)).toMatchObject({ outcome: 'succeeded' });
      expect(await history.counts(id)).toMatchObject({ runs: 1 });
      expect(await bed.redis.exists(k.lease(id))).toBe(0);
    }
    // each batch adds its runs to its partition's totals once per counter: every run counted once
    expect(await history.totals()).toMatchObject({ runs: done.length, errors: 0 });
    await bed.redis.del(...ids.map((id) => k.counts(id)), ...[0, 1, 2, 3].map((i) => k.partition(i).totals));
    await bed.redis.unlink(...ids.flatMap((id) => [k.runs(id), k.runIndex(id)]));
  });
});
