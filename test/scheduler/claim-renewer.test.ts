// ClaimRenewer on its own: which claims it extends, when, and that it stops holding what is released.
import { describe, expect, it } from 'vitest';
import { ClaimRenewer } from '../../src/scheduler/fire/claim-renewer.js';
import type { FireClock } from '../../src/scheduler/fire/fire-clock.js';
import type { Batch } from '../../src/scheduler/fire/fire-loop-types.js';
import { ManualClock } from '../queue/manual-clock.js';

const batch = (token: string): Batch => ({ token, left: 0, ready: [] });

/** A clock read from `now`, whose timers never go off: the test calls `tick` itself. */
const readOnly = (now: () => number): FireClock => ({
  now,
  setTimeout: () => 1,
  clearTimeout: () => undefined,
});

describe('ClaimRenewer', () => {
  it('renews a batch held for a quarter lease or more, with its token and the ids still held', async () => {
    let t = 0;
    const calls: [string[], string][] = [];
    const r = new ClaimRenewer(
      1000,
      async (ids, token) => {
        calls.push([ids, token]);
        return [];
      },
      () => undefined,
      readOnly(() => t),
    );
    const a = batch('A');
    const b = batch('B');
    r.hold(a, ['x', 'y']);
    t = 100;
    r.hold(b, ['z']);
    t = 249;
    await r.tick();
    expect(calls).toEqual([]); // neither is a quarter lease old
    t = 260;
    r.release(a, ['y']);
    await r.tick();
    expect(calls).toEqual([[['x'], 'A']]);
    t = 360;
    await r.tick();
    expect(calls.slice(1)).toEqual([[['z'], 'B']]); // A was renewed at 260: not again yet
    r.release(a, ['x']);
    r.release(b, ['z']);
    expect(r.size).toBe(0);
    t = 10_000;
    await r.tick();
    expect(calls).toHaveLength(2);
    r.stop();
  });

  it('a failed renewal is reported, and the batch is tried again at the next tick', async () => {
    let t = 0;
    let fail = true;
    const errors: unknown[] = [];
    let renewed = 0;
    const r = new ClaimRenewer(
      400,
      async () => {
        if (fail) throw new Error('connection is closed');
        renewed++;
        return [];
      },
      (err) => errors.push(err),
      readOnly(() => t),
    );
    r.hold(batch('A'), ['x']);
    t = 100;
    await r.tick();
    expect(errors).toHaveLength(1);
    fail = false;
    t = 101;
    await r.tick();
    expect(renewed).toBe(1);
    r.stop();
  });

  it('ticks on its clock every quarter lease while it holds claims, and not once they are released', async () => {
    const clock = new ManualClock(0);
    const calls: string[][] = [];
    const r = new ClaimRenewer(
      400,
      async (ids) => {
        calls.push(ids);
        return [];
      },
      () => undefined,
      clock,
    );
    const a = batch('A');
    r.hold(a, ['x']);
    await clock.advance(99);
    expect(calls).toEqual([]);
    await clock.advance(1); // a quarter lease after the claim
    expect(calls).toEqual([['x']]);
    await clock.advance(100);
    expect(calls).toEqual([['x'], ['x']]);
    r.release(a, ['x']);
    expect(clock.pending).toBe(0);
    await clock.advance(1000);
    expect(calls).toHaveLength(2);
  });

  it('lostOf: trusts a lease renewed within half a lease, else asks Redis; a lease runs from the renewal sent', async () => {
    let t = 0;
    const calls: string[][] = [];
    let taken = new Set<string>();
    let stallInReply = 0;
    const r = new ClaimRenewer(
      1000,
      async (ids) => {
        calls.push(ids);
        t += stallInReply; // the process stopped between the renewal and its answer
        return ids.filter((id) => taken.has(id));
      },
      () => undefined,
      readOnly(() => t),
    );
    const a = batch('A');
    r.hold(a, ['x', 'y']);
    t = 500;
    expect(await r.lostOf(a, ['x', 'y'])).toEqual(new Set()); // half a lease: still ours, unasked
    expect(calls).toEqual([]);
    // stopped for 20 s: another replica took y over meanwhile
    t = 20_500;
    taken = new Set(['y']);
    expect(await r.lostOf(a, ['x', 'y'])).toEqual(new Set(['y']));
    expect(calls).toEqual([['x', 'y']]);
    // y is not asked for again, and stays lost
    t = 21_100;
    expect(await r.lostOf(a, ['x', 'y'])).toEqual(new Set(['y']));
    expect(calls.slice(1)).toEqual([['x']]);
    // a stall between the renewal and its answer: the lease ran from the renewal, so x is asked again
    stallInReply = 5000;
    t = 21_700;
    await r.tick();
    stallInReply = 0;
    expect(t).toBe(26_700);
    taken = new Set(['x', 'y']);
    expect(await r.lostOf(a, ['x'])).toEqual(new Set(['x']));
    r.stop();
  });
});
