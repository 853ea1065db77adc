import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RedisClock } from '../../src/scheduler/fire/redis-clock.js';

/** A clock driven by hand: the monotonic time is `t`. */
function manual() {
  const m = { t: 1000 };
  return { m, clock: new RedisClock(() => m.t) };
}

describe('RedisClock', () => {
  it('starts from the first reading and advances with the monotonic clock, a little slower', () => {
    const { m, clock } = manual();
    clock.sync(1_800_000_000_000);
    expect(clock.now()).toBe(1_800_000_000_000);
    m.t += 1000;
    expect(clock.now()).toBeCloseTo(1_800_000_000_999, 6); // 1 s later, 1 ms less: 0.1 % slower
    expect(clock.until(1_800_000_000_999 + 10)).toBeGreaterThanOrEqual(10);
  });

  it('keeps its estimate against a reply handled late, takes a higher reading, and a much lower one', () => {
    const { m, clock } = manual();
    clock.sync(10_000);
    m.t += 100;
    const estimate = clock.now();
    clock.sync(estimate - 3); // handled 3 ms late: not Redis going back
    expect(clock.now()).toBe(estimate);
    clock.sync(estimate + 2); // a better reading
    expect(clock.now()).toBe(estimate + 2);
    clock.sync(estimate - 500); // Redis's clock went back (a failover): follow it
    expect(clock.now()).toBe(estimate - 500);
  });

  it('never runs ahead of Redis: any delays, gaps and drift up to 500 ppm either way', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -500, max: 500 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 30_000 }), delay: fc.nat(200) }), {
          minLength: 1,
          maxLength: 50,
        }),
        (ppm, steps) => {
          const m = { t: 0 };
          const clock = new RedisClock(() => m.t);
          const redis = (t: number) => 1_700_000_000_000 + t * (1 + ppm / 1e6); // Redis's true clock
          for (const { gap, delay } of steps) {
            m.t += gap;
            const read = redis(m.t);
            m.t += delay; // the reply is handled `delay` ms after Redis read its TIME
            clock.sync(Math.floor(read));
            expect(clock.now()).toBeLessThanOrEqual(redis(m.t));
            m.t += gap / 2;
            expect(clock.now()).toBeLessThanOrEqual(redis(m.t));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
