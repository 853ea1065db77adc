import { describe, expect, it } from 'vitest';
import { CronSyntaxError, InvalidTimezoneError, TriggerError } from '../../src/errors/index.js';
import * as root from '../../src/index.js';
import {
  CompoundLogic,
  CompoundTrigger,
  CronTrigger,
  DateTrigger,
  IntervalTrigger,
  isSerializableTrigger,
  type SerializableTrigger,
  type Trigger,
  type TriggerJSON,
  triggerFromJSON,
} from '../../src/triggers/index.js';
import { utc } from './seeded-random.js';

const NOW = utc(2026, 1, 3, 10, 7);

/** Canonical JSON (what `toJSON()` writes) for every built-in and option. */
const canonical: TriggerJSON[] = [
  { type: 'interval', seconds: 300 },
  { type: 'interval', seconds: 0.1 },
  { type: 'interval', seconds: 300, jitter: 30 },
  { type: 'interval', seconds: 3600, jitter: 12.5, anchor: utc(2026, 1, 1, 0, 30) },
  { type: 'interval', seconds: 60, anchor: -1500 },
  { type: 'cron', expression: '0 9 * * 1-5' },
  { type: 'cron', expression: '0 9 * * *', timezone: 'America/New_York', jitter: 7200 },
  { type: 'cron', expression: '0 0 13 * 5', dayMatch: 'and' },
  { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/London', dst: { gap: 'skip' } },
  { type: 'cron', expression: '*/15 * * * *', dst: { gap: 'shift', repeated: 'first' } },
  { type: 'cron', expression: '*/10 * * * * *', dst: { repeated: 'both' } },
  { type: 'date', at: utc(2027, 1, 1) },
  { type: 'date', at: 0 }, // the earliest instant allowed (instant-bounds.ts)
  {
    type: 'compound',
    logic: 'or',
    triggers: [
      { type: 'cron', expression: '0 9 * * 1-5' },
      { type: 'cron', expression: '0 14 * * 0,6' },
    ],
  },
  {
    type: 'compound',
    logic: 'and',
    triggers: [
      {
        type: 'compound',
        logic: 'or',
        triggers: [
          { type: 'interval', seconds: 900 },
          { type: 'cron', expression: '0 * * * *' },
        ],
      },
      { type: 'cron', expression: '* * * * 1-5', timezone: 'Asia/Kolkata' },
      {
        type: 'compound',
        logic: 'and',
        triggers: [
          { type: 'date', at: utc(2026, 6, 1) },
          { type: 'interval', seconds: 60, jitter: 1 },
        ],
      },
    ],
  },
];

function sequence(trigger: Trigger, count: number): (number | null)[] {
  const out: (number | null)[] = [];
  let last: number | null = null;
  for (let i = 0; i < count && (i === 0 || last !== null); i++)
    out.push((last = trigger.nextFire(last, NOW)));
  return out;
}

function errorOf(make: () => unknown): TriggerError {
  try {
    make();
  } catch (err) {
    expect(err).toBeInstanceOf(TriggerError);
    return err as TriggerError;
  }
  throw new Error('expected a TriggerError, nothing was thrown');
}

describe('serialization round-trips', () => {
  for (const json of canonical) {
    it(`toJSON(triggerFromJSON(j)) equals j: ${JSON.stringify(json).slice(0, 90)}`, () => {
      const trigger = triggerFromJSON(json);
      expect(trigger.toJSON()).toStrictEqual(json);
      expect(JSON.parse(JSON.stringify(trigger))).toStrictEqual(json);
      expect(triggerFromJSON(JSON.parse(JSON.stringify(json))).toJSON()).toStrictEqual(json);
      expect(isSerializableTrigger(trigger)).toBe(true);
    });
  }

  it('every built-in built in code comes back with the same JSON, and the same schedule', () => {
    const built: SerializableTrigger[] = [
      new IntervalTrigger(61.5, { anchor: new Date(utc(2026, 1, 1, 0, 0, 7)) }),
      new CronTrigger('0 9 * * 1-5', { timezone: 'America/New_York' }),
      new CronTrigger('0 0 1 * 1', { dayMatch: 'and', dst: { repeated: 'both' } }),
      new DateTrigger(new Date(utc(2026, 3, 15))),
      new CompoundTrigger(
        [
          new CompoundTrigger(
            [new CronTrigger('0 0 1 * *'), new CronTrigger('0 0 * * 1')],
            CompoundLogic.AND,
          ),
          new DateTrigger(utc(2026, 3, 15)),
        ],
        CompoundLogic.OR,
      ),
    ];
    for (const trigger of built) {
      const copy = triggerFromJSON(JSON.parse(JSON.stringify(trigger)));
      expect(copy.constructor).toBe(trigger.constructor);
      expect(copy.toJSON()).toStrictEqual(trigger.toJSON());
      expect(sequence(copy, 5)).toEqual(sequence(trigger, 5));
    }
  });

  it('options at their defaults are left out, so spelled-out defaults come back without them', () => {
    expect(new IntervalTrigger(60, { jitter: 0, anchor: 0 }).toJSON()).toStrictEqual({
      type: 'interval',
      seconds: 60,
    });
    expect(
      new CronTrigger('* * * * *', { timezone: 'UTC', jitter: 0, dayMatch: 'or', dst: {} }).toJSON(),
    ).toStrictEqual({
      type: 'cron',
      expression: '* * * * *',
    });
    expect(triggerFromJSON({ type: 'interval', seconds: 60, jitter: 0, anchor: 0 }).toJSON()).toStrictEqual({
      type: 'interval',
      seconds: 60,
    });
  });

  it('a compound holding a custom trigger is not serializable, and says which child', () => {
    const custom: Trigger = { nextFire: () => null };
    expect(isSerializableTrigger(custom)).toBe(false);
    expect(isSerializableTrigger({ nextFire: () => null, toJSON: () => ({ type: 'date', at: 1 }) })).toBe(
      false,
    );
    expect(isSerializableTrigger(null)).toBe(false);
    const nested = new CompoundTrigger([new IntervalTrigger(60), new CompoundTrigger([custom])]);
    expect(isSerializableTrigger(nested)).toBe(false);
    expect(isSerializableTrigger(new CompoundTrigger([new IntervalTrigger(60)]))).toBe(true);
    const error = errorOf(() => nested.toJSON());
    expect(error.field).toBe('triggers[1].triggers[0]');
    expect(error.message).toMatch(/custom trigger: it can only be defined in code/);
  });
});

describe('triggerFromJSON rejects bad input, naming the path', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['null', null, '(root)', /must be a trigger object/],
    ['a string', '{"type":"date"}', '(root)', /got "\{/],
    ['an array', [], '(root)', /got an array/],
    ['no type', { seconds: 5 }, 'type', /must be a string, got undefined/],
    [
      'unknown type',
      { type: 'weekly' },
      'type',
      /unknown trigger type "weekly" \(expected "interval", "cron", "date", "compound", "except", "calendar"\)/,
    ],
    [
      'seconds as a string',
      { type: 'interval', seconds: '5' },
      'seconds',
      /must be a finite number, got "5"/,
    ],
    ['NaN seconds', { type: 'interval', seconds: Number.NaN }, 'seconds', /got NaN/],
    ['zero seconds', { type: 'interval', seconds: 0 }, 'seconds', /greater than 0, got 0/],
    ['negative jitter', { type: 'interval', seconds: 5, jitter: -1 }, 'jitter', />= 0, got -1/],
    ['jitter >= seconds', { type: 'interval', seconds: 5, jitter: 5 }, 'jitter', /jitter 5 >= seconds 5/],
    [
      'an unknown field',
      { type: 'interval', seconds: 5, jiter: 1 },
      'jiter',
      /unknown field \(expected type, seconds, jitter, anchor\)/,
    ],
    ['null anchor', { type: 'interval', seconds: 5, anchor: null }, 'anchor', /got null/],
    ['no expression', { type: 'cron' }, 'expression', /must be a string, got undefined/],
    [
      'bad dayMatch',
      { type: 'cron', expression: '* * * * *', dayMatch: 'xor' },
      'dayMatch',
      /must be one of "or", "and", got "xor"/,
    ],
    [
      'bad dst.gap',
      { type: 'cron', expression: '* * * * *', dst: { gap: 'jump' } },
      'dst.gap',
      /"shift", "skip"/,
    ],
    [
      'dst not an object',
      { type: 'cron', expression: '* * * * *', dst: 'first' },
      'dst',
      /must be an object/,
    ],
    [
      'unknown dst field',
      { type: 'cron', expression: '* * * * *', dst: { fold: 'x' } },
      'dst.fold',
      /unknown field/,
    ],
    ['Infinity date', { type: 'date', at: Number.POSITIVE_INFINITY }, 'at', /got Infinity/],
    ['date as ISO text', { type: 'date', at: '2027-01-01' }, 'at', /must be a finite number/],
    ['empty compound', { type: 'compound', logic: 'or', triggers: [] }, 'triggers', /at least one trigger/],
    [
      'no logic',
      { type: 'compound', triggers: [{ type: 'date', at: 1 }] },
      'logic',
      /must be one of "and", "or"/,
    ],
    [
      'a bad child',
      {
        type: 'compound',
        logic: 'or',
        triggers: [
          { type: 'date', at: 1 },
          { type: 'interval', seconds: -1 },
        ],
      },
      'triggers[1].seconds',
      /must be a finite number greater than 0, got -1/,
    ],
    [
      'a bad grandchild',
      {
        type: 'compound',
        logic: 'and',
        triggers: [
          { type: 'date', at: 1 },
          { type: 'compound', logic: 'or', triggers: [{ type: 'cron', expression: '0 0 * * *' }, 7] },
        ],
      },
      'triggers[1].triggers[1]',
      /must be a trigger object/,
    ],
    [
      'an unknown type deep down',
      {
        type: 'compound',
        logic: 'or',
        triggers: [{ type: 'compound', logic: 'or', triggers: [{ type: 'x' }] }],
      },
      'triggers[0].triggers[0].type',
      /unknown trigger type "x"/,
    ],
  ];
  for (const [name, json, field, reason] of cases) {
    it(name, () => {
      const error = errorOf(() => triggerFromJSON(json));
      expect(error.trigger).toBe('triggerFromJSON');
      expect(error.field).toBe(field);
      expect(error.reason).toMatch(reason);
      expect(error.message).toBe(`triggerFromJSON: ${field}: ${error.reason}`);
    });
  }

  it('a bad cron expression names its path and keeps the CronSyntaxError as cause', () => {
    const error = errorOf(() =>
      triggerFromJSON({
        type: 'compound',
        logic: 'or',
        triggers: [{ type: 'cron', expression: '0 0 32 * *' }],
      }),
    );
    expect(error.field).toBe('triggers[0].expression');
    expect(error.reason).toBe('cron "0 0 32 * *": day-of-month "32": out of range 1-31');
    expect(error.cause).toBeInstanceOf(CronSyntaxError);
  });

  it('an unknown time zone names its path and keeps the InvalidTimezoneError as cause', () => {
    const error = errorOf(() =>
      triggerFromJSON({ type: 'cron', expression: '0 9 * * *', timezone: 'Moon/Tranquility' }),
    );
    expect(error.field).toBe('timezone');
    expect(error.reason).toMatch(/unknown time zone "Moon\/Tranquility"/);
    expect(error.cause).toBeInstanceOf(InvalidTimezoneError);
  });

  it('compounds nested absurdly deep are refused, not a stack overflow', () => {
    let json: unknown = { type: 'date', at: 1 };
    for (let i = 0; i < 40; i++) json = { type: 'compound', logic: 'or', triggers: [json] };
    const error = errorOf(() => triggerFromJSON(json));
    expect(error.reason).toMatch(/nested deeper than 32/);
    expect(error.field).toBe(Array(32).fill('triggers[0]').join('.'));
  });
});

describe('exports', () => {
  it('the package root exports the triggers', () => {
    expect(root.IntervalTrigger).toBe(IntervalTrigger);
    expect(root.CronTrigger).toBe(CronTrigger);
    expect(root.DateTrigger).toBe(DateTrigger);
    expect(root.CompoundTrigger).toBe(CompoundTrigger);
    expect(root.CompoundLogic).toBe(CompoundLogic);
    expect(root.triggerFromJSON).toBe(triggerFromJSON);
  });
});
