import { describe, expect, it } from 'vitest';
import { TriggerBudgetError, TriggerError } from '../../src/errors/index.js';
import { checkedNextFire } from '../../src/triggers/checked-next-fire.js';
import { ExceptTrigger, IntervalTrigger, type Trigger } from '../../src/triggers/index.js';
import { withTimeBudgetTwice } from '../../src/triggers/time-budget.js';

const NOW = Date.UTC(2027, 0, 1);
const HOUR = 3_600_000;

/** One cron entry per hour from `from`: `* H D M *`, so `hours` hours of consecutive excluded minutes. */
function hourEntries(from: number, hours: number): string[] {
  return Array.from({ length: hours }, (_, h) => {
    const t = new Date(from + h * HOUR);
    return `* ${t.getUTCHours()} ${t.getUTCDate()} ${t.getUTCMonth() + 1} *`;
  });
}

/** A trigger that counts how often it is asked. */
function counting(inner: Trigger): Trigger & { calls: number } {
  const t = {
    calls: 0,
    nextFire(lastFire: number | null, now: number) {
      t.calls++;
      return inner.nextFire(lastFire, now);
    },
  };
  return t;
}

/** Every minute excluded (even and odd minutes), behind 993 dates long past: each step checks them all. */
function everyMinuteExcluded(): string[] {
  const dates = Array.from({ length: 993 }, (_, i) => new Date(Date.UTC(1990, 0, 1) + i * 86_400_000)).map(
    (d) => d.toISOString().slice(0, 10),
  );
  return [...dates, '*/2 * * * *', '1-59/2 * * * *'];
}

describe('the time a trigger may take', () => {
  it('a run of excluded minutes costs one step of the wrapped trigger, not one per minute', () => {
    const inner = counting(new IntervalTrigger(60));
    const hours = 50;
    const t = new ExceptTrigger(inner, hourEntries(NOW, hours));
    expect(t.nextFire(null, NOW)).toBe(NOW + hours * HOUR);
    expect(inner.calls).toBeLessThanOrEqual(2 * hours + 2); // it was 60 per hour
  });

  it('the 995 hours of excluded minutes are walked within the default budget', () => {
    // warm: a replica plans a schedule many times; the first walk in a fresh process is compiled as it
    // goes, and on a loaded box that alone can take half the budget
    new ExceptTrigger(new IntervalTrigger(60), hourEntries(NOW, 20)).nextFire(null, NOW);
    const t = new ExceptTrigger(new IntervalTrigger(60), hourEntries(NOW, 995));
    expect(checkedNextFire(t, null, NOW, 50)).toBe(NOW + 995 * HOUR);
  });

  it('a walk that cannot end within the budget stops with a TriggerBudgetError naming the call and the budget', () => {
    const t = new ExceptTrigger(new IntervalTrigger(60), everyMinuteExcluded());
    let caught: unknown;
    try {
      checkedNextFire(t, null, NOW, 50);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TriggerBudgetError);
    expect((caught as TriggerBudgetError).budgetMs).toBe(50);
    expect((caught as Error).message).toMatch(
      new RegExp(`^ExceptTrigger: nextFire: nextFire\\(null, ${NOW}\\) took more than 50 ms`),
    );
  });

  it('a custom trigger that overruns the budget is judged when it returns', () => {
    const slow: Trigger = {
      nextFire(_last, now) {
        const until = process.cpuUsage().user + 40_000; // 40 ms of CPU
        while (process.cpuUsage().user < until) {}
        return now + 1000;
      },
    };
    expect(() => checkedNextFire(slow, null, NOW, 20)).toThrow(TriggerBudgetError);
    // without a budget it is only held to the contract
    expect(checkedNextFire(slow, null, NOW)).toBe(NOW + 1000);
  });

  it('a pure walk over its budget once (a pause of the process) is walked again; an impure one, or one that needs the time, fails', () => {
    /** Spends `ms` of this process's CPU on its first call only: a pause counted against the walk. */
    const pausedOnce = (ms: number) => {
      let calls = 0;
      const walk = () => {
        calls++;
        if (calls === 1) {
          const until = process.cpuUsage().user + ms * 1000;
          while (process.cpuUsage().user < until) {}
        }
        return checkedNextFire(new IntervalTrigger(60), null, NOW);
      };
      return { walk, calls: () => calls };
    };
    const pure = pausedOnce(40);
    expect(withTimeBudgetTwice(20, true, pure.walk)).toBe(NOW + 60_000);
    expect(pure.calls()).toBe(2);
    const impure = pausedOnce(40);
    expect(() => withTimeBudgetTwice(20, false, impure.walk)).toThrow(TriggerBudgetError);
    expect(impure.calls()).toBe(1);
    // a walk that needs the time fails both
    const slow = new ExceptTrigger(new IntervalTrigger(60), everyMinuteExcluded());
    expect(() => withTimeBudgetTwice(20, true, () => checkedNextFire(slow, null, NOW))).toThrow(
      TriggerBudgetError,
    );
  });

  it('without a budget the walk still ends at the bound of excluded steps', () => {
    const t = new ExceptTrigger(new IntervalTrigger(60), ['*/2 * * * *', '1-59/2 * * * *']);
    expect(() => t.nextFire(null, NOW)).toThrow(TriggerError);
  });
});
