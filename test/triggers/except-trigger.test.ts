import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { CronParser } from '../../src/cron/index.js';
import { TriggerError } from '../../src/errors/index.js';
import { backfillInstants } from '../../src/scheduler/backfill/backfill.js';
import type { ScheduleDefinition } from '../../src/store/forms/definition-schema.js';
import {
  CompoundLogic,
  CompoundTrigger,
  CronTrigger,
  DateTrigger,
  describeTrigger,
  ExceptTrigger,
  IntervalTrigger,
  isSerializableTrigger,
  type Trigger,
  triggerFromJSON,
} from '../../src/triggers/index.js';

const at = (iso: string) => Date.parse(iso);
const isoOf = (t: number) => new Date(t).toISOString();

/** The first `n` fire times after `from`, following the trigger. */
function walk(trigger: Trigger, from: number, n: number): number[] {
  const out: number[] = [];
  let last: number | null = null;
  while (out.length < n) {
    const t = trigger.nextFire(last, from);
    if (t === null) break;
    out.push(t);
    last = t;
  }
  return out;
}

describe('ExceptTrigger', () => {
  it('a date excludes the occurrences whose wall-clock date in the zone is that day', () => {
    // 23:30 UTC on 2026-12-24 is 00:30 on the 25th in Paris: excluded there, not in UTC
    const inner = new IntervalTrigger(3600, { anchor: at('2026-01-01T00:30:00Z') });
    const paris = new ExceptTrigger(inner, ['2026-12-25'], { timezone: 'Europe/Paris' });
    const utc = new ExceptTrigger(inner, ['2026-12-25']);
    const from = at('2026-12-24T21:00:00Z');
    expect(walk(paris, from, 2).map(isoOf)).toEqual(['2026-12-24T21:30:00.000Z', '2026-12-24T22:30:00.000Z']);
    expect(walk(paris, from + 2 * 3600_000, 1).map(isoOf)).toEqual(['2026-12-25T23:30:00.000Z']); // 00:30 on the 26th
    expect(walk(utc, from + 2 * 3600_000, 2).map(isoOf)).toEqual([
      '2026-12-24T23:30:00.000Z',
      '2026-12-26T00:30:00.000Z',
    ]);
  });

  it("the zone defaults to the wrapped cron trigger's, and DST days keep whole local days", () => {
    const t = new ExceptTrigger(new CronTrigger('0 * * * *', { timezone: 'America/New_York' }), [
      '2026-03-08', // spring forward: a 23-hour day
    ]);
    expect(t.timezone).toBe('America/New_York');
    const got = walk(t, at('2026-03-08T03:00:00Z'), 3).map(isoOf);
    // 2026-03-07 23:00 EST is 04:00Z; the whole of 03-08 (05:00Z to 04:00Z next day) is skipped
    expect(got).toEqual(['2026-03-08T04:00:00.000Z', '2026-03-09T04:00:00.000Z', '2026-03-09T05:00:00.000Z']);
  });

  it('a date range excludes each day of it, ends included', () => {
    const t = new ExceptTrigger(new CronTrigger('0 9 * * *'), ['2026-12-24..2026-12-26']);
    expect(walk(t, at('2026-12-23T00:00:00Z'), 2).map(isoOf)).toEqual([
      '2026-12-23T09:00:00.000Z',
      '2026-12-27T09:00:00.000Z',
    ]);
  });

  it('a cron expression excludes occurrences whose minute matches it (a six-field one: the second)', () => {
    const every20s = new IntervalTrigger(20);
    const t = new ExceptTrigger(every20s, ['30 9 * * *']);
    const got = walk(t, at('2026-05-01T09:29:00Z'), 4).map(isoOf);
    expect(got).toEqual([
      '2026-05-01T09:29:20.000Z',
      '2026-05-01T09:29:40.000Z',
      '2026-05-01T09:31:00.000Z', // 09:30:00, :20 and :40 are in the minute 09:30
      '2026-05-01T09:31:20.000Z',
    ]);
    const seconds = new ExceptTrigger(new IntervalTrigger(1), ['*/2 * * * * *']);
    expect(walk(seconds, at('2026-05-01T00:00:00Z'), 3).map((x) => (x / 1000) % 2)).toEqual([1, 1, 1]);
  });

  it('a trigger excludes the instants it would also fire at (a weekday AND, a date)', () => {
    const t = new ExceptTrigger(new CronTrigger('0 12 * * *'), [
      new CronTrigger('0 12 * * 6,0'),
      new DateTrigger(at('2026-05-05T12:00:00Z')),
    ]);
    expect(walk(t, at('2026-05-01T00:00:00Z'), 3).map(isoOf)).toEqual([
      '2026-05-01T12:00:00.000Z', // Fri
      '2026-05-04T12:00:00.000Z', // Mon (Sat 2, Sun 3 excluded)
      '2026-05-06T12:00:00.000Z', // the 5th is excluded by date
    ]);
  });

  it('an exclusion of everything throws a TriggerError naming except; an exhausted trigger stays exhausted', () => {
    const all = new ExceptTrigger(new IntervalTrigger(60), ['* * * * *']);
    expect(() => all.nextFire(null, 0)).toThrow(TriggerError);
    expect(() => all.nextFire(null, 0)).toThrow(/^ExceptTrigger: except: excludes every occurrence/);
    const once = new ExceptTrigger(new DateTrigger(at('2026-12-25T10:00:00Z')), ['2026-12-25']);
    expect(once.nextFire(null, 0)).toBeNull();
  });

  it('bad entries are TriggerErrors naming the entry', () => {
    const inner = new IntervalTrigger(60);
    const bad: [unknown[], RegExp][] = [
      [['2026-13-01'], /except\[0\]: "2026-13-01" is not a real date/],
      [['2026-02-29'], /not a real date/], // 2026 is no leap year
      [['2026-12-26..2026-12-24'], /ends before it starts/],
      [['0 9 * *', '2026-01-01'], /except\[0\]: cron "0 9 \* \*"/],
      [['2026-01-01', ''], /except\[1\]: must be a date/],
      [[{}], /except\[0\]: must be a date/],
      [[new CronTrigger('0 9 * * *', { jitter: 60 })], /no jitter/],
      [['2026-12-01..9999-12-31'], /except\[0\]: "2026-12-01\.\.9999-12-31" reaches 9999, the last year/],
      [['2026-01-01', '9999-06-01'], /except\[1\]: "9999-06-01" reaches 9999/],
    ];
    for (const [except, message] of bad) {
      expect(() => new ExceptTrigger(inner, except as never), JSON.stringify(except)).toThrow(message);
    }
    expect(() => new ExceptTrigger(inner, '2026-01-01' as never)).toThrow(/except: must be an array/);
    expect(() => new ExceptTrigger(inner, [], { timezone: 'Mars/Olympus' })).toThrow(/timezone/);
    expect(new ExceptTrigger(inner, ['2024-02-29']).except).toEqual(['2024-02-29']);
  });

  it('serializes, reads back, nests in a compound, and says itself in words', () => {
    const t = new ExceptTrigger(new CronTrigger('0 9 * * 1-5', { timezone: 'Europe/Berlin' }), [
      '2026-12-25',
      '2026-12-31..2027-01-01',
      '* 9 * * 3',
      new CronTrigger('0 9 1 * *'),
    ]);
    const json = t.toJSON();
    expect(json).toEqual({
      type: 'except',
      trigger: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
      except: [
        '2026-12-25',
        '2026-12-31..2027-01-01',
        '* 9 * * 3',
        { type: 'cron', expression: '0 9 1 * *' },
      ],
    });
    expect(triggerFromJSON(json).toJSON()).toEqual(json);
    expect(isSerializableTrigger(t)).toBe(true);
    expect(isSerializableTrigger(new ExceptTrigger({ nextFire: () => null }, []))).toBe(false);
    const other = new ExceptTrigger(new IntervalTrigger(60), ['2026-12-25'], { timezone: 'Asia/Tokyo' });
    expect(other.toJSON()).toMatchObject({ timezone: 'Asia/Tokyo' });
    expect(describeTrigger(json)).toBe(
      'At 09:00, Monday through Friday (Europe/Berlin); except (Europe/Berlin): 2026-12-25; 2026-12-31 to 2027-01-01; minutes matching "* 9 * * 3" (every minute, during the 09:00 hour, on Wednesday); when at 09:00, on the 1st of the month (UTC)',
    );
    const and = new CompoundTrigger([t, new IntervalTrigger(86_400)], CompoundLogic.AND);
    expect(triggerFromJSON(and.toJSON()).toJSON()).toEqual(and.toJSON());
    // inside an AND, an excluded instant is not due
    const days = walk(
      new CompoundTrigger(
        [t, new CronTrigger('0 9 * 12 *', { timezone: 'Europe/Berlin' })],
        CompoundLogic.AND,
      ),
      at('2026-12-23T00:00:00Z'),
      3,
    );
    expect(days.map((d) => DateTime.fromMillis(d, { zone: 'Europe/Berlin' }).toISODate())).toEqual([
      '2026-12-24', // the 23rd is a Wednesday ("* 9 * * 3"), the 25th a date
      '2026-12-28',
      '2026-12-29',
    ]);
    expect(() =>
      triggerFromJSON({ type: 'except', trigger: { type: 'interval', seconds: 60 }, except: ['x y'] }),
    ).toThrow(/^triggerFromJSON: except\[0\]: /);
    expect(() => triggerFromJSON({ type: 'except', except: [] })).toThrow(/trigger: required/);
  });
});

// ── properties ─────────────────────────────────────────────────────────────────────────────

const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Apia',
];
const INNER = ['*/7 * * * *', '0 */3 * * *', '30 2 * * *', '0 9 * * 1-5', '15,45 * * * *', '0 0 * * *'];
const EXCL_CRON = ['* * * * 0,6', '* 2 * * *', '0-29 * * * *', '* * 1 * *', '0 9 * * 1'];
const RUNS = Number(process.env.EXCEPT_PROPERTY_RUNS ?? 60);
const START = at('2025-06-01T00:00:00Z');
const DAY = 86_400_000;

const caseArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  inner: fc.constantFrom(...INNER),
  dates: fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 6 }),
  range: fc.option(fc.tuple(fc.integer({ min: 0, max: 900 }), fc.integer({ min: 0, max: 10 }))),
  crons: fc.array(fc.constantFrom(...EXCL_CRON), { maxLength: 2 }),
  from: fc.integer({ min: 0, max: 900 * 24 }).map((h) => START + h * 3_600_000),
});

const dayText = (d: number) => new Date(START + d * DAY).toISOString().slice(0, 10);

/**
 * The oracle: whether an instant is excluded, computed with luxon and the cron parser (none of
 * ExceptTrigger's code). Its parsers are made once per case, not once per instant.
 */
function excludedByOracle(
  zone: string,
  dates: string[],
  ranges: [string, string][],
  crons: string[],
): (t: number) => boolean {
  const parsers = crons.map((c) => new CronParser(c, { timezone: zone }));
  return (t) => {
    const day = DateTime.fromMillis(t, { zone }).toISODate() as string;
    if (dates.includes(day)) return true;
    if (ranges.some(([a, b]) => day >= a && day <= b)) return true;
    const minute = Math.floor(t / 60_000) * 60_000;
    return parsers.some((p) => p.matches(minute));
  };
}

describe('ExceptTrigger properties', () => {
  it('its walk is the wrapped walk minus exactly the excluded occurrences', () => {
    fc.assert(
      fc.property(caseArb, ({ zone, inner, dates, range, crons, from }) => {
        const dateTexts = dates.map(dayText);
        const ranges: [string, string][] = range ? [[dayText(range[0]), dayText(range[0] + range[1])]] : [];
        const entries = [...dateTexts, ...ranges.map(([a, b]) => `${a}..${b}`), ...crons];
        const base = new CronTrigger(inner, { timezone: zone });
        let t: ExceptTrigger;
        try {
          t = new ExceptTrigger(base, entries);
          t.nextFire(null, from);
        } catch (err) {
          // only an exclusion of (nearly) everything may refuse: e.g. "* * * * 0,6" + "0-29 * * * *" + ...
          expect(err).toBeInstanceOf(TriggerError);
          return;
        }
        // compared within the stretch the wrapped walk covers (an exclusion may thin it out a lot)
        const innerWalk = walk(base, from, 3000);
        const horizon = innerWalk.at(-1) ?? from;
        const got = walk(t, from, 40).filter((x) => x <= horizon);
        const excluded = excludedByOracle(zone, dateTexts, ranges, crons);
        const want = innerWalk.filter((x) => !excluded(x)).slice(0, got.length);
        expect(got.map(isoOf)).toEqual(want.map(isoOf));
        for (const x of got) expect(excluded(x)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('backfill instants lie in [from, to), in order, follow the trigger and are never excluded', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: 1, max: 20 * 24 }),
        ({ zone, inner, dates, crons, from }, hours) => {
          const dateTexts = dates.map(dayText);
          const trigger = new ExceptTrigger(new CronTrigger(inner, { timezone: zone }), [
            ...dateTexts,
            ...crons,
          ]);
          const to = from + hours * 3_600_000;
          const def = { id: 'p', trigger: trigger.toJSON() } as unknown as ScheduleDefinition;
          let instants: number[];
          try {
            instants = backfillInstants(def, trigger, from, to, 100_000);
          } catch (err) {
            expect(err).toBeInstanceOf(TriggerError);
            return;
          }
          const excluded = excludedByOracle(zone, dateTexts, [], crons);
          const innerCron = new CronParser(inner, { timezone: zone });
          for (let i = 0; i < instants.length; i++) {
            const x = instants[i] as number;
            expect(x).toBeGreaterThanOrEqual(from);
            expect(x).toBeLessThan(to);
            if (i > 0) expect(x).toBeGreaterThan(instants[i - 1] as number);
            expect(excluded(x)).toBe(false);
            expect(innerCron.matches(x)).toBe(true);
          }
          // nothing of the trigger's in the range is missing
          const all = walk(trigger, from - 1, instants.length + 1);
          expect(all.filter((x) => x < to)).toEqual(instants);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
