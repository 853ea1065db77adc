// A group's places (`try-group-4` with max holders and an overflow) against Redis, and the group option's rule.
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { groupLeaseName } from '../../src/store/forms/group-options.js';
import { groupOccupancy, LeaseStore } from '../../src/store/reads/lease-store.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from '../scheduler/helpers.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed | undefined;
afterEach(async () => {
  await bed?.cleanup();
  bed = undefined;
});

const name = groupLeaseName('tenant:acme');

describe('group places', () => {
  it("'skip': up to max holders, then refused; a place given back is taken again", async () => {
    bed = new StoreBed();
    const leases = new LeaseStore(bed.redis, 10_000);
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'a', 2, 'skip'))).toBe('number');
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'b', 2, 'skip'))).toBe('number');
    expect(await leases.takeGroupPlace(bed.k, name, 'c', 2, 'skip')).toBe('refused');
    expect(await groupOccupancy(bed.redis, bed.k, name)).toEqual({ running: 2, waiting: 0 });
    await leases.release(bed.k.group(name), 'a');
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'c', 2, 'skip'))).toBe('number');
    // a lapsed holder (its worker died) frees its place
    await bed.redis.zadd(bed.k.group(name), 1, 'b');
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'd', 2, 'skip'))).toBe('number');
    expect(await bed.redis.zrange(bed.k.group(name), '0', '-1')).toEqual(expect.arrayContaining(['c', 'd']));
  });

  it("'bufferOne': one waits, the next is refused; 'bufferAll': each waits, served in arrival order", async () => {
    bed = new StoreBed();
    const leases = new LeaseStore(bed.redis, 10_000);
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'a', 1, 'bufferOne'))).toBe('number');
    expect(await leases.takeGroupPlace(bed.k, name, 'b', 1, 'bufferOne')).toBe('waiting');
    expect(await leases.takeGroupPlace(bed.k, name, 'c', 1, 'bufferOne')).toBe('refused');
    expect(await groupOccupancy(bed.redis, bed.k, name)).toEqual({ running: 1, waiting: 1 });
    await leases.release(bed.k.group(name), 'a');
    expect(typeof (await leases.takeGroupPlace(bed.k, name, 'b', 1, 'bufferOne'))).toBe('number');

    const all = groupLeaseName('all');
    expect(typeof (await leases.takeGroupPlace(bed.k, all, 'x', 2, 'bufferAll'))).toBe('number');
    expect(typeof (await leases.takeGroupPlace(bed.k, all, 'y', 2, 'bufferAll'))).toBe('number');
    for (const w of ['p', 'q', 'r'])
      expect(await leases.takeGroupPlace(bed.k, all, w, 2, 'bufferAll')).toBe('waiting');
    await leases.release(bed.k.group(all), 'x');
    // one place free: the first in line takes it, not the third
    expect(await leases.takeGroupPlace(bed.k, all, 'r', 2, 'bufferAll')).toBe('waiting');
    expect(typeof (await leases.takeGroupPlace(bed.k, all, 'p', 2, 'bufferAll'))).toBe('number');
    expect(await groupOccupancy(bed.redis, bed.k, all)).toEqual({ running: 2, waiting: 2 });
  });
});

describe('group option', () => {
  it('is refused naming the field: max 0, a missing key, an unknown overflow', async () => {
    const env = testEnv('group-opts');
    try {
      const m = env.manager();
      const refused = (group: unknown): ScheduleOptionsError => {
        try {
          m.schedule(() => {}, new IntervalTrigger(60), { id: 'g', name: 'g', group: group as never });
        } catch (err) {
          if (err instanceof ScheduleOptionsError) return err;
          throw err;
        }
        throw new Error('not refused');
      };
      const zero = refused({ key: 'tenant:acme', max: 0 });
      expect(zero.field).toBe('group.max');
      expect(zero.message).toMatch(/must be an integer >= 1, got 0/);
      expect(refused({ max: 2 }).field).toBe('group.key');
      expect(refused({ key: 'k', max: 2, overflow: 'queue' }).field).toBe('group.overflow');
      expect(refused({ key: 'k', max: 2, limit: 3 }).field).toBe('group.limit');
      const ok = m.schedule(() => {}, new IntervalTrigger(60), {
        id: 'h',
        name: 'h',
        group: { key: 'tenant:acme', max: 2, overflow: 'bufferOne' },
      });
      expect(ok.def.run.group).toEqual({ key: 'tenant:acme', max: 2, overflow: 'bufferOne' });
    } finally {
      await env.cleanup();
    }
  });
});
