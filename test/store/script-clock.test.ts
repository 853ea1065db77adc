// The clock the claim and lease scripts judge by: Redis TIME in production (no clock set on the
// client, no `clock ms` ARGV sent), a time the test drives when it sets one (`setScriptClock`), so
// claims, claim lapses and lease lapses are tested without sleeping.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaseScripts, ScheduleScripts } from '../../src/store/scripts/index.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { row, StoreBed } from './helpers.js';

let bed: StoreBed;
let open = false;
/** A bed for one test, cleaned up after it. */
function freshBed(): StoreBed {
  open = true;
  return new StoreBed();
}
afterEach(async () => {
  if (!open) return;
  open = false;
  setScriptClock(bed.redis, undefined);
  await bed.cleanup();
});

async function schedule(id: string, due: number) {
  await bed.redis.hset(bed.k.schedules, id, `{"id":"${id}"}`);
  await bed.redis.hset(bed.k.state, id, row('a'));
  await bed.redis.zadd(bed.k.due, due, id);
}

const HOUR = 3_600_000;

describe('the production path reads Redis TIME', () => {
  it('a claim, a lease renewal and a group taken, with no clock set, are judged by Redis TIME', async () => {
    bed = freshBed();
    const scripts = new ScheduleScripts(bed.redis);
    const leases = new LeaseScripts(bed.redis);
    // an hour off from any plausible stand-in: a script judging by anything but Redis TIME fails here
    const before = await bed.now();
    await schedule('due', before - HOUR);
    await schedule('later', before + HOUR);
    const claimed = await scripts.claim(bed.k, { batch: 10, leaseMs: 5000, token: 'tok', aheadMs: 0 });
    const taken = await leases.tryGroup(bed.k, { group: 'g', leaseId: 'l', ttlMs: 10_000 });
    await bed.redis.zadd(bed.k.lease('s'), 1, 'run');
    expect(await leases.renewRun(bed.k, { scheduleId: 's', leaseId: 'run', ttlMs: 10_000 })).toBe('held');
    const after = await bed.now();

    expect(claimed.now).toBeGreaterThanOrEqual(before);
    expect(claimed.now).toBeLessThanOrEqual(after);
    expect(claimed.claims.map((c) => c.id)).toEqual(['due']);
    const lapse = Number(await bed.redis.zscore(bed.k.inflight, 'due'));
    expect(lapse - 5000).toBe(claimed.now);
    expect(taken).toBeGreaterThanOrEqual(before);
    expect(taken).toBeLessThanOrEqual(after);
    const runLapse = Number(await bed.redis.zscore(bed.k.lease('s'), 'run'));
    expect(runLapse - 10_000).toBeGreaterThanOrEqual(before);
    expect(runLapse - 10_000).toBeLessThanOrEqual(after);
  });
});

describe('no production code sets a clock', () => {
  it('setScriptClock is called from tests only: in src/, dashboard/, nest/, workers/ it is only defined', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const callers: string[] = [];
    for (const dir of ['src', 'dashboard', 'nest', 'workers']) {
      for (const file of readdirSync(join(root, dir), { recursive: true }) as string[]) {
        if (!file.endsWith('.ts')) continue;
        const text = readFileSync(join(root, dir, file), 'utf8');
        const calls = text.match(/setScriptClock\(/g)?.length ?? 0;
        const defined = text.includes('export function setScriptClock(') ? 1 : 0;
        if (calls > defined) callers.push(join(dir, file));
      }
    }
    expect(callers).toEqual([]);
  });
});

describe('a clock the test drives', () => {
  it('claims by it: what is due on it, not on Redis TIME; a claim lapses, and is taken over, as it moves', async () => {
    bed = freshBed();
    const scripts = new ScheduleScripts(bed.redis);
    let now = (await bed.now()) - HOUR; // an hour behind Redis TIME: every due time below is past for Redis
    setScriptClock(bed.redis, () => now);
    await schedule('a', now + 1000);
    await schedule('b', now + 2000);

    const first = await scripts.claim(bed.k, { batch: 10, leaseMs: 500, token: 't1', aheadMs: 0 });
    expect(first.now).toBe(now);
    expect(first.claims).toEqual([]);
    expect(first.nextDue).toBe(now + 1000);

    now += 1000;
    const second = await scripts.claim(bed.k, { batch: 10, leaseMs: 500, token: 't2', aheadMs: 0 });
    expect(second.claims.map((c) => [c.id, c.reclaimed])).toEqual([['a', false]]);
    expect(Number(await bed.redis.zscore(bed.k.inflight, 'a'))).toBe(now + 500);

    // renewed by its token on the driven clock: it lapses 500 ms after the renewal, not before
    now += 400;
    expect(await scripts.renewClaims(bed.k, { ids: ['a'], token: 't2', leaseMs: 500 })).toEqual([]);
    expect(Number(await bed.redis.zscore(bed.k.inflight, 'a'))).toBe(now + 500);
    now += 499;
    const held = await scripts.claim(bed.k, { batch: 10, leaseMs: 500, token: 't3', aheadMs: 0 });
    expect(held.claims).toEqual([]);
    now += 1;
    const over = await scripts.claim(bed.k, { batch: 10, leaseMs: 500, token: 't3', aheadMs: 0 });
    expect(over.claims.map((c) => [c.id, c.reclaimed])).toEqual([['a', true]]);
  });

  it('leases lapse by it: a run slot and an exclusion group', async () => {
    bed = freshBed();
    const leases = new LeaseScripts(bed.redis);
    let now = (await bed.now()) + HOUR; // an hour ahead of Redis TIME
    setScriptClock(bed.redis, () => now);

    expect(await leases.tryGroup(bed.k, { group: 'g', leaseId: 'a', ttlMs: 1000 })).toBe(now);
    now += 999;
    expect(await leases.tryGroup(bed.k, { group: 'g', leaseId: 'b', ttlMs: 1000 })).toBeUndefined();
    expect(await leases.renewLease({ set: bed.k.group('g'), leaseId: 'a', ttlMs: 1000 })).toBe(true);
    expect(Number(await bed.redis.zscore(bed.k.group('g'), 'a'))).toBe(now + 1000);
    now += 1001; // a's renewed lease lapsed: b, first in line, takes the group
    expect(await leases.tryGroup(bed.k, { group: 'g', leaseId: 'b', ttlMs: 1000 })).toBe(now);
    expect(await bed.redis.zrange(bed.k.group('g'), '0', '-1')).toEqual(['b']);

    await bed.redis.zadd(bed.k.lease('s'), now + 10, 'run');
    expect(await leases.renewRun(bed.k, { scheduleId: 's', leaseId: 'run', ttlMs: 250 })).toBe('held');
    expect(Number(await bed.redis.zscore(bed.k.lease('s'), 'run'))).toBe(now + 250);
  });

  it('unset, the scripts read Redis TIME again', async () => {
    bed = freshBed();
    const scripts = new ScheduleScripts(bed.redis);
    setScriptClock(bed.redis, () => 1);
    expect((await scripts.claim(bed.k, { batch: 1, leaseMs: 1, token: 't', aheadMs: 0 })).now).toBe(1);
    setScriptClock(bed.redis, undefined);
    const before = await bed.now();
    expect(
      (await scripts.claim(bed.k, { batch: 1, leaseMs: 1, token: 't', aheadMs: 0 })).now,
    ).toBeGreaterThanOrEqual(before);
  });
});
