// mark-errored-8.lua and clear-error-5.lua on their own against Redis.
import { afterEach, describe, expect, it } from 'vitest';
import { CLEAR_ERROR, MARK_ERRORED } from '../../src/store/scripts/script-layouts.js';
import { defineStoreScripts } from '../../src/store/scripts/scripts.js';
import { callScript, row, StoreBed, scheduleScriptKeys } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

const ERR = JSON.stringify({ reason: 'boom', at: 9000, fireAt: 5000 });

async function claimed() {
  bed = new StoreBed();
  defineStoreScripts(bed.redis);
  await bed.redis.hset(bed.k.state, 's', row('a', 2, 4000));
  await bed.redis.zadd(bed.k.inflight, Date.now() + 60_000, 's');
  await bed.redis.hset(bed.k.claim, 's', '5000|t');
  return scheduleScriptKeys(bed.k);
}

describe('mark-errored', () => {
  it('from a claim still ours: errored, out of due and inflight, reason stored, counted', async () => {
    const keys = await claimed();
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '5000|t', ERR, 9000)).toBe(1);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('e', 2, 4000));
    expect(await bed.redis.hget(bed.k.errors, 's')).toBe(ERR);
    expect(await bed.redis.hget(bed.k.claim, 's')).toBeNull();
    expect(await bed.redis.zscore(bed.k.inflight, 's')).toBeNull();
    expect(await bed.redis.hget(bed.k.totals, 'errored')).toBe('1');
  });

  it('a stale claimant (claim taken over) changes nothing', async () => {
    const keys = await claimed();
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '5000|old', ERR, 9000)).toBe(0);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 2, 4000));
    expect(await bed.redis.hget(bed.k.claim, 's')).toBe('5000|t');
  });

  it('re-defined while claimed: not blamed, back in due at its resched time (or completed on -1)', async () => {
    let keys = await claimed();
    await bed.redis.hset(bed.k.resched, 's', '7000');
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '5000|t', ERR, 9000)).toBe(0);
    expect(await bed.redis.zscore(bed.k.due, 's')).toBe('7000');
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 2, 4000));
    expect(await bed.redis.hexists(bed.k.errors, 's')).toBe(0);
    await bed.cleanup();
    keys = await claimed();
    await bed.redis.hset(bed.k.resched, 's', '-1');
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '5000|t', ERR, 9000)).toBe(0);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('c', 2, 4000));
    expect(await bed.redis.zscore(bed.k.completed, 's')).toBe('9000');
  });

  it('paused while claimed: the claim is completed without marking it', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.state, 's', row('p', 2, 4000));
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 's', '5000|t', ERR, 9000)).toBe(0);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('p', 2, 4000));
    expect(await bed.redis.hget(bed.k.claim, 's')).toBeNull();
  });

  it('without a claim (at definition), from any status', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.state, 'c', row('c'));
    await bed.redis.zadd(bed.k.completed, 1, 'c');
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 'c', '', ERR, 9000)).toBe(1);
    expect(await bed.redis.hget(bed.k.state, 'c')).toBe(row('e'));
    expect(await bed.redis.zscore(bed.k.completed, 'c')).toBeNull();
    expect(await callScript(bed, MARK_ERRORED, ...keys.markErrored, 'gone', '', ERR, 9000)).toBe(0);
  });
});

describe('clear-error', () => {
  it('active again from next (left out of due while claimed), or completed; the reason goes either way', async () => {
    const keys = await claimed();
    await bed.redis.hset(bed.k.state, 's', row('e', 2, 4000));
    await bed.redis.hset(bed.k.errors, 's', ERR);
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', 8000, 9000)).toBe(1);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('a', 2, 4000));
    expect(await bed.redis.zscore(bed.k.due, 's')).toBeNull();
    expect(await bed.redis.hexists(bed.k.errors, 's')).toBe(0);
    await bed.redis.zrem(bed.k.inflight, 's');
    await bed.redis.hset(bed.k.state, 's', row('e', 2, 4000));
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', 8000, 9000)).toBe(1);
    expect(await bed.redis.zscore(bed.k.due, 's')).toBe('8000');
    await bed.redis.hset(bed.k.state, 's', row('e', 2, 4000));
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', '', 9000)).toBe(1);
    expect(await bed.redis.hget(bed.k.state, 's')).toBe(row('c', 2, 4000));
    expect(await bed.redis.zscore(bed.k.completed, 's')).toBe('9000');
    await bed.redis.hset(bed.k.errors, 's', ERR);
    expect(await callScript(bed, CLEAR_ERROR, ...keys.clearError, 's', 8000, 9000)).toBe(0);
    expect(await bed.redis.hexists(bed.k.errors, 's')).toBe(0);
  });
});
