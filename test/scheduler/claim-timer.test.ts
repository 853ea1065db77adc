import { describe, expect, it } from 'vitest';
import { ClaimTimer } from '../../src/scheduler/fire/claim-timer.js';
import { ManualClock } from '../queue/manual-clock.js';

/** A claim timer on a manual clock, and the claims it started (the clock's time, and how late). */
function timer(options = { claimAheadMs: 1000, maxSleepMs: 5000 }, extraAheadMs = () => 0) {
  const clock = new ManualClock(0);
  const claims: { at: number; late: number }[] = [];
  const t = new ClaimTimer(options, (late) => claims.push({ at: clock.now(), late }), extraAheadMs, clock);
  return { clock, claims, t };
}

describe('ClaimTimer (on a manual clock: no sleeping)', () => {
  it('goes off once, after the delay it was armed for, never later than maxSleepMs', async () => {
    const { clock, claims, t } = timer();
    t.arm(300);
    await clock.advance(299);
    expect(claims).toEqual([]);
    await clock.advance(1);
    expect(claims).toEqual([{ at: 300, late: 0 }]);
    t.arm(60_000);
    await clock.advance(5000);
    expect(claims).toEqual([
      { at: 300, late: 0 },
      { at: 5300, late: 0 },
    ]);
    expect(clock.pending).toBe(0);
  });

  it('armed for earlier, it stays; armed for later, the earlier one wins; one timer at a time', async () => {
    const { clock, claims, t } = timer();
    t.arm(1000);
    t.arm(2000); // later: ignored
    expect(clock.pending).toBe(1);
    t.arm(100); // earlier: replaces
    expect(clock.pending).toBe(1);
    await clock.advance(5000);
    expect(claims.map((c) => c.at)).toEqual([100]);
  });

  it('an occurrence beyond the horizon is claimed once within it (claimAheadMs before its time)', async () => {
    const { clock, claims, t } = timer();
    t.armFor(4000, 0);
    await clock.advance(2999);
    expect(claims).toEqual([]);
    await clock.advance(1);
    expect(claims.map((c) => c.at)).toEqual([3000]);
  });

  it('claims are paced at half a horizon after the last one, unless that leaves less than 5 ms before the fire time', async () => {
    const { clock, claims, t } = timer();
    t.claimed(0);
    t.armFor(800, 0); // within the horizon, but the last claim was just now: at 500 (half a horizon)
    await clock.advance(1000);
    expect(claims.map((c) => c.at)).toEqual([500]);
    t.claimed(1000);
    t.armFor(1100, 1000); // pacing would wait until 1500, past its time: 5 ms ahead of it instead
    await clock.advance(1000);
    expect(claims.map((c) => c.at)).toEqual([500, 1095]);
  });

  it('the horizon reaches further by what the fire loop learnt (extraAheadMs)', async () => {
    let extra = 0;
    const { clock, claims, t } = timer(undefined, () => extra);
    extra = 500;
    t.armFor(4000, 0); // horizon 1,500 ms: claimed at 2,500
    await clock.advance(4000);
    expect(claims.map((c) => c.at)).toEqual([2500]);
  });

  it('stopped: the armed timer is cleared and arming again does nothing', async () => {
    const { clock, claims, t } = timer();
    t.arm(100);
    t.stop();
    expect(clock.pending).toBe(0);
    t.arm(10);
    await clock.advance(10_000);
    expect(claims).toEqual([]);
  });

  it('reports how late the timer went off, measured on its clock', async () => {
    // a clock whose timers run late: each fires 40 ms after its time
    const clock = new ManualClock(0);
    const lateClock = {
      now: () => clock.now(),
      setTimeout: (cb: () => void, ms: number) => clock.setTimeout(cb, ms + 40),
      clearTimeout: (h: unknown) => clock.clearTimeout(h),
    };
    const lates: number[] = [];
    const t = new ClaimTimer(
      { claimAheadMs: 1000, maxSleepMs: 5000 },
      (late) => lates.push(late),
      () => 0,
      lateClock,
    );
    t.arm(100);
    await clock.advance(200);
    expect(lates).toEqual([40]);
  });
});
