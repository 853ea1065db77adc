import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../dashboard/failure-limiter.js';
import { capturingLogger } from './harness.js';

function limiter(limit: number, windowMs: number, maxClients = 100) {
  const clock = { t: 1_000_000 };
  const log = capturingLogger();
  const l = new FailureLimiter({ limit, windowMs, maxClients, logger: log.logger, now: () => clock.t });
  return { l, clock, log };
}

describe('FailureLimiter', () => {
  it('refuses a client from its limit until its window ends, then counts afresh', () => {
    const { l, clock } = limiter(2, 1000);
    l.fail('a', 'bearer');
    expect(l.retryAfterMs('a')).toBe(0);
    clock.t += 10;
    l.fail('a', 'basic');
    expect(l.retryAfterMs('a')).toBe(990);
    expect(l.retryAfterMs('b')).toBe(0);
    clock.t += 989;
    expect(l.retryAfterMs('a')).toBe(1);
    clock.t += 1;
    expect(l.retryAfterMs('a')).toBe(0);
    l.fail('a', 'form');
    expect(l.retryAfterMs('a')).toBe(0);
  });

  it('warns once per client and window, at info for each failure', () => {
    const { l, clock, log } = limiter(2, 1000);
    for (let i = 0; i < 5; i++) l.fail('a', 'bearer');
    expect(log.lines.filter((x) => x.level === 40)).toHaveLength(1);
    expect(log.lines.filter((x) => x.level === 30)).toHaveLength(5);
    clock.t += 1000;
    for (let i = 0; i < 2; i++) l.fail('a', 'bearer');
    expect(log.lines.filter((x) => x.level === 40)).toHaveLength(2);
  });

  it('holds at most maxClients, dropping expired windows first, then the oldest', () => {
    const { l, clock } = limiter(1, 1000, 3);
    for (const c of ['a', 'b', 'c', 'd', 'e']) {
      l.fail(c, 'bearer');
      clock.t += 1;
    }
    expect(l.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((c) => l.retryAfterMs(c) > 0)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    clock.t += 2000;
    l.fail('f', 'bearer');
    expect(l.size).toBe(1);
  });

  it('does nothing with a limit of 0', () => {
    const { l } = limiter(0, 1000);
    for (let i = 0; i < 100; i++) l.fail('a', 'bearer');
    expect(l.retryAfterMs('a')).toBe(0);
    expect(l.size).toBe(0);
  });
});
