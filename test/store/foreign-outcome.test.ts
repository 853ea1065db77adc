// foreign-outcomes-2.lua through ForeignOutcomeRecorder: an outcome read from BullMQ is counted once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ForeignOutcome,
  ForeignOutcomeRecorder,
} from '../../src/store/bullmq/foreign-outcome-script.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { storeScript } from '../../src/store/scripts/scripts.js';
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
    const recorder = new ForeignOutcomeRecorder(bed.redis, bed.k, 20);
    for (let i = 0; i < 2; i++) {
      expect(await recorder.record(outcome(1500))).toBe(false);
    }
    expect(await bed.redis.hget(bed.k.counts('s'), 'runs')).toBeNull();
    expect(await bed.redis.hexists(bed.k.runs('s'), '1500')).toBe(0);
    expect(await bed.redis.exists(bed.k.record('s', '1500'))).toBe(0);
  });

  it('outcomes recorded together go in one call: each written and counted once, whatever else the batch holds', async () => {
    bed = new StoreBed();
    await history(bed, 3, 'enqueued');
    const recorder = new ForeignOutcomeRecorder(bed.redis, bed.k, 20);
    await bed.redis.hset(bed.k.runs('s'), '2000', 'not json'); // a record no script may overwrite
    // the real script, counted as sent (EVALSHA of its SHA)
    const sha = storeScript('foreign-outcomes-2').sha;
    const sent = vi.spyOn(bed.redis, 'sendCommand');
    const calls = () => sent.mock.calls.filter(([c]) => c.name === 'evalsha' && c.args[0] === sha).length;
    const results = await Promise.all([
      recorder.record({ ...outcome(1000), jobId: 'j1000' }),
      recorder.record(outcome(2000)),
      recorder.record({ ...outcome(3000), outcome: 'failed', error: 'boom' }),
      recorder.record({ ...outcome(4000), scheduleId: 'gone' }), // no such schedule: no first record
    ]);
    expect(calls()).toBe(1);
    expect(results).toEqual([true, false, true, false]);
    // seen again (another replica, a reconciliation pass): left alone, not counted twice
    expect(await recorder.record(outcome(1000))).toBe(false);
    expect(await bed.redis.hgetall(bed.k.counts('s'))).toEqual({ runs: '2', errors: '1' });
    // the deployment's totals, summed once per name at the end of the call
    expect(await bed.redis.hmget(bed.k.totals, 'runs', 'errors')).toEqual(['2', '1']);
    // an earlier release's `enqueued` record (JSON), with this release's facts over it
    expect(await new RunHistory(bed.redis, bed.k, 20).get('s', 3000)).toMatchObject({
      outcome: 'failed',
      error: 'boom',
      consumer: 'foreign',
    });
    expect(await bed.redis.hget(bed.k.runs('s'), '2000')).toBe('not json');
    expect(await bed.redis.exists(bed.k.runs('gone'), bed.k.record('gone', '4000'))).toBe(0);
  });
});
