import { describe, expect, it } from 'vitest';
import { TriggerError } from '../../src/errors/index.js';
import {
  CompoundLogic,
  CompoundTrigger,
  CronTrigger,
  DateTrigger,
  IntervalTrigger,
  type Trigger,
} from '../../src/triggers/index.js';
import { DAY, HOUR, MINUTE, utc } from './seeded-random.js';

// Reference: Saturday 2026-01-03 10:07 UTC. 2026-01-05 is a Monday; 2026-01-09 a Friday.
const NOW = utc(2026, 1, 3, 10, 7);

function fires(
  trigger: Trigger,
  count: number,
  now = NOW,
  lastFire: number | null = null,
): (number | null)[] {
  const out: (number | null)[] = [];
  let last = lastFire;
  for (let i = 0; i < count; i++) {
    last = trigger.nextFire(last, now);
    out.push(last);
    if (last === null) break;
  }
  return out;
}

/**
 * Sillo's `BusinessHoursTrigger` made pure: every `intervalMs` on a grid from midnight UTC, but only
 * 09:00-17:00 UTC on weekdays; outside those hours, the next business day at 09:00.
 */
class BusinessHoursTrigger implements Trigger {
  calls = 0;
  constructor(readonly intervalMs = 30 * MINUTE) {}

  nextFire(lastFire: number | null, now: number): number {
    this.calls++;
    const after = lastFire ?? now;
    let t = Math.floor(after / this.intervalMs) * this.intervalMs + this.intervalMs;
    for (;;) {
      const day = Math.floor(t / DAY) * DAY;
      const weekday = new Date(day).getUTCDay();
      const open = day + 9 * HOUR;
      const close = day + 17 * HOUR;
      if (weekday !== 0 && weekday !== 6 && t < close) return Math.max(t, open);
      t = day + DAY;
    }
  }
}

/** Counts how often a compound asks its child, to show that a hopeless AND gives up in bounded work. */
class Counting implements Trigger {
  calls = 0;
  constructor(readonly inner: Trigger) {}
  nextFire(lastFire: number | null, now: number): number | null {
    this.calls++;
    return this.inner.nextFire(lastFire, now);
  }
}

describe('CompoundLogic', () => {
  it("keeps Sillo's names and values", () => {
    expect(CompoundLogic).toEqual({ AND: 'and', OR: 'or' });
    expect(new CompoundTrigger([new IntervalTrigger(60)]).logic).toBe('or');
  });
});

describe('CompoundTrigger OR', () => {
  it('seeds 12.4: top of every hour OR every 15 minutes fires at whichever comes first, once when they coincide', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 * * * *'), new IntervalTrigger(900)],
      CompoundLogic.OR,
    );
    expect(fires(trigger, 6)).toEqual([
      utc(2026, 1, 3, 10, 15),
      utc(2026, 1, 3, 10, 30),
      utc(2026, 1, 3, 10, 45),
      utc(2026, 1, 3, 11, 0),
      utc(2026, 1, 3, 11, 15),
      utc(2026, 1, 3, 11, 30),
    ]);
  });

  it('seeds 12.4 with the interval off the hour: the union of both schedules', () => {
    const trigger = new CompoundTrigger([
      new CronTrigger('0 * * * *'),
      new IntervalTrigger(900, { anchor: 5 * MINUTE }),
    ]);
    expect(fires(trigger, 6)).toEqual([
      utc(2026, 1, 3, 10, 20),
      utc(2026, 1, 3, 10, 35),
      utc(2026, 1, 3, 10, 50),
      utc(2026, 1, 3, 11, 0),
      utc(2026, 1, 3, 11, 5),
      utc(2026, 1, 3, 11, 20),
    ]);
  });

  it('seeds 001: 9 AM weekdays OR 2 PM weekends (UTC), from Friday 2026-01-02 10:00', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 9 * * 1-5'), new CronTrigger('0 14 * * 0,6')],
      CompoundLogic.OR,
    );
    expect(fires(trigger, 6, utc(2026, 1, 2, 10))).toEqual([
      utc(2026, 1, 3, 14),
      utc(2026, 1, 4, 14),
      utc(2026, 1, 5, 9),
      utc(2026, 1, 6, 9),
      utc(2026, 1, 7, 9),
      utc(2026, 1, 8, 9),
    ]);
  });

  it('seeds 001: the same in New York time', () => {
    const trigger = new CompoundTrigger([
      new CronTrigger('0 9 * * 1-5', { timezone: 'America/New_York' }),
      new CronTrigger('0 14 * * 0,6', { timezone: 'America/New_York' }),
    ]);
    expect(fires(trigger, 4, utc(2026, 1, 2, 10))).toEqual([
      utc(2026, 1, 2, 14),
      utc(2026, 1, 3, 19),
      utc(2026, 1, 4, 19),
      utc(2026, 1, 5, 14),
    ]);
  });

  it('inside an OR a jittered child counts from the compound fire: a sibling firing in its window drops it', () => {
    const daily = new CronTrigger('0 9 * * *', { jitter: 7200, random: () => 0.75 }); // 10:30
    const trigger = new CompoundTrigger([daily, new DateTrigger(utc(2026, 1, 4, 9, 30))]);
    expect(fires(trigger, 3)).toEqual([
      utc(2026, 1, 4, 9, 30),
      utc(2026, 1, 5, 10, 30),
      utc(2026, 1, 6, 10, 30),
    ]);
  });

  it('a date child fires once inside an OR; exhausted children drop out; all exhausted gives null', () => {
    const trigger = new CompoundTrigger([
      new DateTrigger(utc(2026, 1, 3, 10, 50)),
      new CronTrigger('0 * * * *'),
    ]);
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 3, 10, 50), utc(2026, 1, 3, 11), utc(2026, 1, 3, 12)]);
    const dates = new CompoundTrigger([new DateTrigger(utc(2026, 2, 1)), new DateTrigger(utc(2026, 1, 20))]);
    expect(fires(dates, 3)).toEqual([utc(2026, 1, 20), utc(2026, 2, 1), null]);
  });
});

describe('CompoundTrigger AND: the earliest instant at which every child is due', () => {
  it('seeds 8.2: top of every hour AND every 5 minutes fires on the hour', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 * * * *'), new IntervalTrigger(300)],
      CompoundLogic.AND,
    );
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 3, 11), utc(2026, 1, 3, 12), utc(2026, 1, 3, 13)]);
  });

  it('an interval child is due from its next fire time onward (25-minute grid from midnight, cron every 10)', () => {
    // Interval grid: 10:25, 10:50, 11:15, 11:40, 12:05...; cron: every 10 minutes.
    const trigger = new CompoundTrigger(
      [new IntervalTrigger(1500, { anchor: utc(2026, 1, 3) }), new CronTrigger('*/10 * * * *')],
      CompoundLogic.AND,
    );
    expect(fires(trigger, 5)).toEqual([
      utc(2026, 1, 3, 10, 30),
      utc(2026, 1, 3, 10, 50),
      utc(2026, 1, 3, 11, 20),
      utc(2026, 1, 3, 11, 40),
      utc(2026, 1, 3, 12, 10),
    ]);
  });

  it('seeds 12.5: top of the hour AND a weekday', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 * * * *'), new CronTrigger('* * * * 1-5')],
      CompoundLogic.AND,
    );
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 5, 0), utc(2026, 1, 5, 1), utc(2026, 1, 5, 2)]);
    // Friday 22:30: the last one of the week, then Monday.
    expect(fires(trigger, 2, utc(2026, 1, 9, 22, 30))).toEqual([utc(2026, 1, 9, 23), utc(2026, 1, 12, 0)]);
  });

  it('seeds 12.6 nested: (every 15 minutes OR every hour) AND weekdays', () => {
    const inner = new CompoundTrigger(
      [new IntervalTrigger(900), new CronTrigger('0 * * * *')],
      CompoundLogic.OR,
    );
    const outer = new CompoundTrigger([inner, new CronTrigger('* * * * 1-5')], CompoundLogic.AND);
    expect(fires(outer, 4)).toEqual([
      utc(2026, 1, 5, 0, 0),
      utc(2026, 1, 5, 0, 15),
      utc(2026, 1, 5, 0, 30),
      utc(2026, 1, 5, 0, 45),
    ]);
    // From Friday 23:45 the next one is Monday 00:00.
    expect(outer.nextFire(utc(2026, 1, 9, 23, 45), NOW)).toBe(utc(2026, 1, 12));
  });

  it('seeds 001: the 1st of the month AND a weekday (Feb and Mar 2026 start on a Sunday)', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 0 1 * *'), new CronTrigger('* * * * 1-5')],
      CompoundLogic.AND,
    );
    expect(fires(trigger, 3, utc(2025, 12, 31))).toEqual([utc(2026, 1, 1), utc(2026, 4, 1), utc(2026, 5, 1)]);
  });

  it('nested three deep: (the 1st AND a Monday) OR a date, inside an AND with midnight', () => {
    const firstMonday = new CompoundTrigger(
      [new CronTrigger('0 0 1 * *'), new CronTrigger('0 0 * * 1')],
      CompoundLogic.AND,
    );
    // 2026-06-01 and 2027-02-01 are the next Mondays that fall on a 1st.
    expect(fires(firstMonday, 2)).toEqual([utc(2026, 6, 1), utc(2027, 2, 1)]);
    const either = new CompoundTrigger([firstMonday, new DateTrigger(utc(2026, 3, 15))], CompoundLogic.OR);
    expect(fires(either, 3)).toEqual([utc(2026, 3, 15), utc(2026, 6, 1), utc(2027, 2, 1)]);
    const atMidnightAndEither = new CompoundTrigger(
      [new CronTrigger('0 0 * * *'), either, new IntervalTrigger(86_400)],
      CompoundLogic.AND,
    );
    expect(fires(atMidnightAndEither, 3)).toEqual([utc(2026, 3, 15), utc(2026, 6, 1), utc(2027, 2, 1)]);
  });

  it('an AND child inside an AND', () => {
    const weekdayHours = new CompoundTrigger(
      [new CronTrigger('0 * * * *'), new CronTrigger('* * * * 1-5')],
      CompoundLogic.AND,
    );
    const trigger = new CompoundTrigger([weekdayHours, new CronTrigger('0 12 * * *')], CompoundLogic.AND);
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 5, 12), utc(2026, 1, 6, 12), utc(2026, 1, 7, 12)]);
  });

  it('a date inside an AND: due only at its instant; a date in the past can never be due', () => {
    const onGrid = new CompoundTrigger(
      [new DateTrigger(utc(2026, 1, 5, 9)), new CronTrigger('0 9 * * 1-5')],
      CompoundLogic.AND,
    );
    expect(fires(onGrid, 2)).toEqual([utc(2026, 1, 5, 9), null]);
    // The interval is due from 10:10 Saturday onward, so the date (off its grid) fires.
    const withInterval = new CompoundTrigger(
      [new DateTrigger(utc(2026, 1, 5, 9, 2)), new IntervalTrigger(300)],
      CompoundLogic.AND,
    );
    expect(fires(withInterval, 2)).toEqual([utc(2026, 1, 5, 9, 2), null]);
    const past = new CompoundTrigger(
      [new DateTrigger(utc(2026, 1, 1)), new IntervalTrigger(60)],
      CompoundLogic.AND,
    );
    expect(past.nextFire(null, NOW)).toBeNull();
  });

  it('an AND that can never be satisfied returns null, in bounded work', () => {
    // Mondays at midnight AND a Tuesday: nothing to search.
    const mondayAndTuesday = new CompoundTrigger(
      [new CronTrigger('0 0 * * 1'), new DateTrigger(utc(2026, 1, 6))],
      CompoundLogic.AND,
    );
    expect(mondayAndTuesday.nextFire(null, NOW)).toBeNull();
    // Mondays AND Tuesdays (two unbounded calendars): the search gives up at its round bound.
    const monday = new Counting(new CronTrigger('0 0 * * 1'));
    const tuesday = new Counting(new CronTrigger('0 0 * * 2'));
    const never = new CompoundTrigger([monday, tuesday], CompoundLogic.AND);
    expect(never.nextFire(null, NOW)).toBeNull();
    expect(monday.calls + tuesday.calls).toBeLessThanOrEqual(20_000);
    // Nested hopeless ANDs share one bound instead of multiplying theirs.
    const a = new Counting(new CronTrigger('0 0 * * 1'));
    const b = new Counting(new CronTrigger('0 0 * * 2'));
    const nested = new CompoundTrigger(
      [new CompoundTrigger([a, new CronTrigger('0 0 * * *')], CompoundLogic.AND), b],
      CompoundLogic.AND,
    );
    expect(nested.nextFire(null, NOW)).toBeNull();
    expect(a.calls + b.calls).toBeLessThanOrEqual(20_000);
  });

  it('a rare but real coincidence is found: 29 February on a Monday (2044)', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 0 29 2 *'), new CronTrigger('0 0 * * 1')],
      CompoundLogic.AND,
    );
    expect(trigger.nextFire(null, NOW)).toBe(utc(2044, 2, 29));
  });

  it('cron jitter is ignored inside an AND (the cron child is due exactly at its instants)', () => {
    const trigger = new CompoundTrigger(
      [new CronTrigger('0 9 * * *', { jitter: 3600, random: () => 0.9 }), new IntervalTrigger(60)],
      CompoundLogic.AND,
    );
    expect(fires(trigger, 2)).toEqual([utc(2026, 1, 4, 9), utc(2026, 1, 5, 9)]);
  });

  it('a jittered interval child draws its offset once per evaluation', () => {
    let draws = 0;
    const interval = new IntervalTrigger(3600, {
      jitter: 1800,
      random: () => (draws++ % 2 === 0 ? 0.5 : 0.9),
    });
    const trigger = new CompoundTrigger([interval, new CronTrigger('*/5 * * * *')], CompoundLogic.AND);
    // Interval due from 11:15 (11:00 + 0.5 * 30 min); first 5-minute mark at or after it.
    expect(trigger.nextFire(null, NOW)).toBe(utc(2026, 1, 3, 11, 15));
    expect(draws).toBe(1);
  });
});

describe('custom triggers', () => {
  it("Sillo's BusinessHoursTrigger made pure, alone", () => {
    const trigger = new BusinessHoursTrigger(30 * MINUTE);
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 5, 9), utc(2026, 1, 5, 9, 30), utc(2026, 1, 5, 10)]);
    expect(trigger.nextFire(utc(2026, 1, 5, 16, 30), NOW)).toBe(utc(2026, 1, 6, 9));
    expect(trigger.nextFire(utc(2026, 1, 9, 16, 30), NOW)).toBe(utc(2026, 1, 12, 9));
  });

  it('inside an OR with a date', () => {
    const trigger = new CompoundTrigger([new BusinessHoursTrigger(), new DateTrigger(utc(2026, 1, 4, 12))]);
    expect(fires(trigger, 3)).toEqual([utc(2026, 1, 4, 12), utc(2026, 1, 5, 9), utc(2026, 1, 5, 9, 30)]);
  });

  it('inside an AND with a cron (every 2 hours): calendar semantics, due only at its instants', () => {
    const trigger = new CompoundTrigger([new BusinessHoursTrigger(), new CronTrigger('0 */2 * * *')], 'and');
    expect(fires(trigger, 5)).toEqual([
      utc(2026, 1, 5, 10),
      utc(2026, 1, 5, 12),
      utc(2026, 1, 5, 14),
      utc(2026, 1, 5, 16),
      utc(2026, 1, 6, 10),
    ]);
  });

  it('inside an AND with an hourly interval, nested in an OR', () => {
    const businessHourly = new CompoundTrigger(
      [new BusinessHoursTrigger(), new IntervalTrigger(3600)],
      'and',
    );
    expect(fires(businessHourly, 3)).toEqual([utc(2026, 1, 5, 9), utc(2026, 1, 5, 10), utc(2026, 1, 5, 11)]);
    const orSunday = new CompoundTrigger([businessHourly, new CronTrigger('0 18 * * 0')], 'or');
    expect(fires(orSunday, 3)).toEqual([utc(2026, 1, 4, 18), utc(2026, 1, 5, 9), utc(2026, 1, 5, 10)]);
  });

  it('a custom trigger that breaks the contract inside an AND is a clear error', () => {
    const broken: Trigger = { nextFire: (last, now) => (last ?? now) - MINUTE };
    const trigger = new CompoundTrigger([new CronTrigger('0 * * * *'), broken], 'and');
    expect(() => trigger.nextFire(null, NOW)).toThrow(TriggerError);
    expect(() => trigger.nextFire(null, NOW)).toThrow(/triggers\[1\]: custom trigger broke the contract/);
  });
});

describe('CompoundTrigger: bad input', () => {
  it('an empty list', () => {
    expect(() => new CompoundTrigger([])).toThrow(
      'CompoundTrigger: triggers: must hold at least one trigger, got an empty list',
    );
    expect(() => new CompoundTrigger([], CompoundLogic.AND)).toThrow(TriggerError);
  });

  it('not a list, not triggers, unknown logic', () => {
    expect(() => new CompoundTrigger(null as unknown as Trigger[])).toThrow(/triggers: must be an array/);
    expect(() => new CompoundTrigger([new IntervalTrigger(1), {} as Trigger])).toThrow(
      /triggers\[1\]: must be a trigger \(an object with a nextFire method\)/,
    );
    expect(() => new CompoundTrigger([new IntervalTrigger(1)], 'xor' as CompoundLogic)).toThrow(
      'CompoundTrigger: logic: must be "and" or "or", got "xor"',
    );
  });

  it('does not keep a reference to the caller array', () => {
    const list: Trigger[] = [new DateTrigger(utc(2026, 2, 1))];
    const trigger = new CompoundTrigger(list);
    list.push(new DateTrigger(utc(2026, 1, 10)));
    expect(trigger.nextFire(null, NOW)).toBe(utc(2026, 2, 1));
    expect(Object.isFrozen(trigger.triggers)).toBe(true);
  });
});
