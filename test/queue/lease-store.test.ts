// Run slots with retries owed their run: a retry waiting for the slot gets it before newer occurrences.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { LeaseStore } from '../../src/store/lease-store.js';
import { REDIS, TestBed } from './helpers.js';

let bed: TestBed;

afterEach(async () => {
  await bed.cleanup();
});

describe('LeaseStore run slots', () => {
  it('a retry owed its run claims the busy slot: newer occurrences are refused it, the retry gets it', async () => {
    bed = new TestBed();
    const redis = new Redis(REDIS);
    try {
      const store = new LeaseStore(redis, 10_000);
      const k = keys(bed.prefix);
      expect((await store.acquireSlot(k, 's', 'newer-run', 1, true)).granted).toBe(true);
      // The retry finds the slot busy: refused, it claims the next one.
      expect((await store.acquireSlot(k, 's', 'retry-lease', 1, true, 'job-1')).granted).toBe(false);
      await store.release(k.lease('s'), 'newer-run');
      // The slot is free, but owed: a fresh occurrence is refused it (with or without coalesce).
      expect((await store.acquireSlot(k, 's', 'fresh', 1, true)).granted).toBe(false);
      expect((await store.acquireSlot(k, 's', 'fresh', 1, false)).granted).toBe(false);
      expect((await store.acquireSlot(k, 's', 'retry-lease', 1, true, 'job-1')).granted).toBe(true);
      expect(await redis.zcard(k.leaseOwed('s'))).toBe(0);
      await store.release(k.lease('s'), 'retry-lease');
      expect((await store.acquireSlot(k, 's', 'fresh', 1, true)).granted).toBe(true);
    } finally {
      await redis.quit();
    }
  });

  it('two retries owed one slot do not block each other', async () => {
    bed = new TestBed();
    const redis = new Redis(REDIS);
    try {
      const store = new LeaseStore(redis, 10_000);
      const k = keys(bed.prefix);
      await store.acquireSlot(k, 's', 'holder', 1, true);
      expect((await store.acquireSlot(k, 's', 'a', 1, true, 'job-a')).granted).toBe(false);
      expect((await store.acquireSlot(k, 's', 'b', 1, true, 'job-b')).granted).toBe(false);
      await store.release(k.lease('s'), 'holder');
      expect((await store.acquireSlot(k, 's', 'b', 1, true, 'job-b')).granted).toBe(true);
      expect((await store.acquireSlot(k, 's', 'a', 1, true, 'job-a')).granted).toBe(false);
    } finally {
      await redis.quit();
    }
  });
});
