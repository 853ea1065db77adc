// renew-lease-1, try-group-4 and leave-group-queue-2 on their own against Redis.
import { afterEach, describe, expect, it } from 'vitest';
import { LEAVE_GROUP_QUEUE, RENEW_LEASE, TRY_GROUP } from '../../src/store/scripts/script-layouts.js';
import { defineStoreScripts } from '../../src/store/scripts/scripts.js';
import { callScript, StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

function setup() {
  bed = new StoreBed();
  defineStoreScripts(bed.redis);
  return { lease: bed.k.lease('s'), owed: bed.k.leaseOwed('s') };
}

describe('renew-lease', () => {
  it('extends a held lease by Redis time; 0 once it is gone', async () => {
    const { lease } = setup();
    await bed.redis.zadd(lease, 1, 'held');
    const before = await bed.now();
    expect(await callScript(bed, RENEW_LEASE, lease, 'held', 10_000)).toBe(1);
    expect(Number(await bed.redis.zscore(lease, 'held'))).toBeGreaterThanOrEqual(before + 10_000);
    expect(await callScript(bed, RENEW_LEASE, lease, 'other', 10_000)).toBe(0);
    expect(await bed.redis.zscore(lease, 'other')).toBeNull();
  });
});

describe('try-group and leave-group-queue', () => {
  it('first in line takes a free group; the next waits; a lapsed holder frees it; leaving the line works', async () => {
    bed = new StoreBed();
    defineStoreScripts(bed.redis);
    const g = [bed.k.group('g'), bed.k.groupQueue('g'), bed.k.groupWaiters('g'), bed.k.groupTicket('g')];
    const [holder, queue, waiters] = g as [string, string, string, string];
    expect(await callScript(bed, TRY_GROUP, ...g, 'a', 10_000)).toBeGreaterThan(0); // taken: its Redis TIME
    expect(await callScript(bed, TRY_GROUP, ...g, 'b', 10_000)).toBe(0);
    expect(await callScript(bed, TRY_GROUP, ...g, 'c', 10_000)).toBe(0);
    expect(await bed.redis.zrange(queue, '0', '-1')).toEqual(['b', 'c']);
    await bed.redis.zadd(holder, 1, 'a'); // a's lease lapses
    expect(await callScript(bed, TRY_GROUP, ...g, 'c', 10_000)).toBe(0); // b is first in line
    expect(await callScript(bed, LEAVE_GROUP_QUEUE, queue, waiters, 'b')).toBe(1);
    expect(await callScript(bed, TRY_GROUP, ...g, 'c', 10_000)).toBeGreaterThan(0); // taken: its Redis TIME
    expect(await bed.redis.zrange(holder, '0', '-1')).toEqual(['c']);
    expect(await bed.redis.zcard(queue)).toBe(0);
  });

  it('a waiter whose heartbeat lapsed loses its place', async () => {
    bed = new StoreBed();
    defineStoreScripts(bed.redis);
    const g = [bed.k.group('g'), bed.k.groupQueue('g'), bed.k.groupWaiters('g'), bed.k.groupTicket('g')];
    await callScript(bed, TRY_GROUP, ...g, 'holder', 10_000);
    await callScript(bed, TRY_GROUP, ...g, 'gone', 10_000);
    await callScript(bed, TRY_GROUP, ...g, 'next', 10_000);
    await bed.redis.zadd(g[2] as string, 1, 'gone');
    await bed.redis.zadd(g[0] as string, 1, 'holder');
    expect(await callScript(bed, TRY_GROUP, ...g, 'next', 10_000)).toBeGreaterThan(0); // taken: its Redis TIME
  });
});
