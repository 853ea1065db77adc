// The re-schedule-while-claimed path, script by script: upsert-9, set-status-6 and complete-n
// never send a schedule back to (or before) the occurrence it has claimed.
import { afterEach, describe, expect, it } from 'vitest';
import { COMPLETE, SET_STATUS, UPSERT } from '../../src/store/scripts/script-layouts.js';
import { defineStoreScripts } from '../../src/store/scripts/scripts.js';
import { callScript, item, row, StoreBed, scheduleScriptKeys } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

/** Schedule `s`, active, claimed at fire time 5000 with token `t` (as claim-6.lua leaves it). */
async function claimed(): Promise<ReturnType<typeof scheduleScriptKeys>> {
  bed = new StoreBed();
  defineStoreScripts(bed.redis);
  const { k } = bed;
  await bed.redis.hset(k.schedules, 's', '{"id":"s"}');
  await bed.redis.hset(k.state, 's', row('a', 3, 4000));
  await bed.redis.zadd(k.inflight, Date.now() + 60_000, 's');
  await bed.redis.hset(k.claim, 's', '5000|t');
  return scheduleScriptKeys(k);
}

describe('re-schedule while claimed', () => {
  it('upsert with a new timing at or before the claimed fire time writes nothing and answers claimed:<fireAt>', async () => {
    const keys = await claimed();
    for (const next of [4000, 5000]) {
      expect(
        await callScript(bed, UPSERT, ...keys.upsert, 's', '{"id":"s","v":2}', 'fp2', next, 9000, 'r', ''),
      ).toBe('claimed:5000');
    }
    expect(await bed.redis.hget(bed.k.schedules, 's')).toBe('{"id":"s"}');
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 3, 4000));
    expect(await bed.redis.hexists(bed.k.resched, 's')).toBe(0);
  });

  it('upsert with a new timing after the claimed fire time goes to resched, not due', async () => {
    const keys = await claimed();
    expect(
      await callScript(bed, UPSERT, ...keys.upsert, 's', '{"id":"s","v":2}', 'fp2', 7000, 9000, 'r', ''),
    ).toBe('updated');
    expect(await bed.redis.hget(bed.k.resched, 's')).toBe('7000');
    expect(await bed.redis.zscore(bed.k.due, 's')).toBeNull();
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 3, 4000, 1000, 'fp2'));
  });

  it('resume (set-status to a) at or before the claimed fire time answers -2 and writes nothing', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.state, 's', row('p', 3, 4000));
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'p', 'a', 5000)).toBe(-2);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('p', 3, 4000));
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'p', 'a', 6000)).toBe(1);
    expect(await bed.redis.hget(bed.k.resched, 's')).toBe('6000');
    expect(await bed.redis.zscore(bed.k.due, 's')).toBeNull();
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 3, 4000));
  });

  it('a pause drops a pending resched: the completion leaves the schedule out of due', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.resched, 's', '7000');
    expect(await callScript(bed, SET_STATUS, ...keys.setStatus, 's', 'a', 'p', '')).toBe(1);
    expect(await bed.redis.hexists(bed.k.resched, 's')).toBe(0);
    expect(
      await callScript(bed, COMPLETE, ...keys.complete(['s']), 10, 9000, 't', 0, ...item('s', 5000, 6000)),
    ).toEqual([1]);
    expect(await bed.redis.zscore(bed.k.due, 's')).toBeNull();
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('p', 3, 4000));
  });

  it('the completion applies a resched after the claimed fire time, never one at or before it', async () => {
    for (const [rs, expected] of [
      ['7000', '7000'],
      ['5000', '6000'],
      ['4000', '6000'],
    ] as const) {
      const keys = await claimed();
      await bed.redis.hset(bed.k.resched, 's', rs);
      expect(
        await callScript(bed, COMPLETE, ...keys.complete(['s']), 10, 9000, 't', 0, ...item('s', 5000, 6000)),
      ).toEqual([1]);
      expect(await bed.redis.zscore(bed.k.due, 's'), `resched ${rs}`).toBe(expected);
      expect(await bed.redis.hexists(bed.k.resched, 's')).toBe(0);
      await bed.cleanup();
    }
    bed = new StoreBed();
  });

  it('a resched of -1 (no next time) completes the schedule', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.resched, 's', '-1');
    await callScript(bed, COMPLETE, ...keys.complete(['s']), 10, 9000, 't', 0, ...item('s', 5000, 6000));
    expect(await bed.redis.zscore(bed.k.completed, 's')).toBe('9000');
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('c', 3, 4000));
  });
});
