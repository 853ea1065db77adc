// RecheckAhead (no Redis): under commitAhead, an occurrence whose schedule's previous job was young at
// the claim is looked at a lead before its fire time, never before the previous job has had its chance,
// and staged then; one whose look-up would come too close to its fire time is held for it.
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/scheduler/fire/fire-loop-types.js';
import { RecheckAhead } from '../../src/scheduler/fire/recheck-ahead.js';
import { RedisClock } from '../../src/scheduler/fire/redis-clock.js';
import { ManualClock } from '../queue/manual-clock.js';

const T0 = 1_800_000_000_000;

function item(id: string, fireAt: number, recheck?: { dueAt: number; minWaitedMs: number }): Item {
  return {
    claim: { id, fireAt, claim: `${fireAt}|t`, reclaimed: false, defJSON: '{}', state: null },
    cached: { defJSON: '{}', def: {} as Item['cached']['def'], trigger: { nextFire: () => null } },
    plan: { enqueue: { fireAt, kind: 'scheduled' }, missed: [], next: null, lateMs: 0 },
    batch: { token: 't', left: 1, ready: [] },
    stopSeq: 0,
    claimedAt: T0,
    ...(recheck && { recheck: { queue: 'q', jobId: `bb-${id}-${recheck.dueAt}`, ...recheck } }),
  };
}

function setUp() {
  const timers = new ManualClock(0);
  const clock = new RedisClock(() => timers.now());
  clock.sync(T0);
  const staged: { ids: string[]; at: number }[] = [];
  const held: string[] = [];
  const ahead = new RecheckAhead(
    clock,
    timers,
    (items, now) => staged.push({ ids: items.map((i) => i.claim.id), at: now }),
    (items) => held.push(...items.map((i) => i.claim.id)),
  );
  return { timers, staged, held, ahead };
}

describe('RecheckAhead', () => {
  it('looks up at the lead before the fire time, after the previous job had its chance; leaves the rest', async () => {
    const { timers, staged, held, ahead } = setUp();
    // a 1 s schedule claimed 1.2 s ahead: its previous job (due at T0 + 200) was young at the claim
    const burst = item('a', T0 + 1200, { dueAt: T0 + 200, minWaitedMs: 500 });
    const plain = item('b', T0 + 1200); // nothing to look at: staged at the claim, not here
    const close = item('c', T0 + 1200, { dueAt: T0 + 1150, minWaitedMs: 25 }); // its chance ends at its instant
    const later = [burst, plain, close];
    ahead.take(later, 300);
    expect(later).toEqual([plain, close]);
    expect(ahead.ids()).toEqual(['a']);
    await timers.advance(945);
    expect(staged).toEqual([]);
    await timers.advance(15); // T0 + 950: 250 ms before its fire time, 750 ms after its previous one was due
    expect(staged).toHaveLength(1);
    expect(staged[0]!.ids).toEqual(['a']);
    expect(staged[0]!.at - (T0 + 950)).toBeGreaterThanOrEqual(0);
    expect(staged[0]!.at - (T0 + 950)).toBeLessThan(15); // a timer: never early, a slew late at most
    expect(held).toEqual([]);
    expect(ahead.length).toBe(0);
  });

  it('a lead of 250 ms at most; a schedule whose previous job would have had less than 3/4 of its gap is held', async () => {
    const { timers, staged, ahead } = setUp();
    const second = item('a', T0 + 1000, { dueAt: T0, minWaitedMs: 500 });
    const short = item('b', T0 + 400, { dueAt: T0, minWaitedMs: 200 }); // 150 of 400 ms at its look-up
    const later = [second, short];
    ahead.take(later, 900);
    expect(later).toEqual([short]);
    await timers.advance(745);
    expect(staged).toEqual([]);
    await timers.advance(15);
    expect(staged).toHaveLength(1);
    expect(staged[0]!.at).toBeGreaterThanOrEqual(T0 + 750);
  });

  it('a stopped schedule is dropped; at stop the rest are held for their fire time', async () => {
    const { timers, staged, held, ahead } = setUp();
    ahead.take(
      [
        item('a', T0 + 1000, { dueAt: T0, minWaitedMs: 500 }),
        item('b', T0 + 1000, { dueAt: T0, minWaitedMs: 500 }),
      ],
      300,
    );
    expect(ahead.drop('a').map((i) => i.claim.id)).toEqual(['a']);
    ahead.flush();
    expect(held).toEqual(['b']);
    await timers.advance(1000);
    expect(staged).toEqual([]);
  });
});
