import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError, TriggerError } from '../../src/errors/index.js';
import { resolveScheduleOptions } from '../../src/scheduler/contract/resolve-schedule-options.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { DateTrigger } from '../../src/triggers/date-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { triggerFromJSON } from '../../src/triggers/trigger-from-json.js';

const thrown = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
};

describe('instants and periods are bounded at definition', () => {
  it.each([1e20, -1e300, -1, 8.64e15, Number.MAX_VALUE])(
    'DateTrigger(%d) is refused, saying the bounds',
    (at) => {
      const err = thrown(() => new DateTrigger(at));
      expect(err).toBeInstanceOf(TriggerError);
      expect((err as TriggerError).field).toBe('at');
      expect(err.message).toMatch(/out of range \(must be an epoch ms between 0 .* and 253402300799999/);
    },
  );

  it('a date trigger read from JSON with at: 1e20 is refused, naming the field', () => {
    const err = thrown(() => triggerFromJSON({ type: 'date', at: 1e20 }));
    expect(err).toBeInstanceOf(TriggerError);
    expect((err as TriggerError).field).toBe('at');
    expect((err as TriggerError).reason).toContain('1e+20 is out of range');
  });

  it.each([1e300, 1e13, 3_155_760_001])('IntervalTrigger(%d) is refused: at most 100 years', (seconds) => {
    const err = thrown(() => new IntervalTrigger(seconds));
    expect(err).toBeInstanceOf(TriggerError);
    expect((err as TriggerError).field).toBe('seconds');
    expect(err.message).toContain('at most 3155760000 (100 years)');
  });

  it('an interval anchor and a cron jitter are bounded too', () => {
    expect((thrown(() => new IntervalTrigger(60, { anchor: 1e20 })) as TriggerError).field).toBe('anchor');
    expect((thrown(() => new CronTrigger('* * * * *', { jitter: 1e300 })) as TriggerError).field).toBe(
      'jitter',
    );
    expect((thrown(() => triggerFromJSON({ type: 'interval', seconds: 1e300 })) as TriggerError).field).toBe(
      'seconds',
    );
  });

  it('instants are stored as whole milliseconds', () => {
    expect(new DateTrigger(1000.4).at).toBe(1001); // never before the instant given
    expect(new IntervalTrigger(1, { anchor: 10.6 }).anchor).toBe(11);
    const { def } = resolveScheduleOptions({
      options: { name: 'n', startAt: 1000.5, endAt: 5000.5 },
      fallbackName: undefined,
      defaultQueue: 'q',
      trigger: new IntervalTrigger(1),
      source: 'runtime',
    });
    expect(def.startAt).toBe(1001);
    expect(def.endAt).toBe(5000);
  });

  it.each(['startAt', 'endAt'])('%s out of range is refused, naming the field and the bounds', (field) => {
    const err = thrown(() =>
      resolveScheduleOptions({
        options: { name: 'n', [field]: 1e20 },
        fallbackName: undefined,
        defaultQueue: 'q',
        trigger: new IntervalTrigger(1),
        source: 'runtime',
      }),
    );
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect((err as ScheduleOptionsError).field).toBe(field);
    expect(err.message).toContain('out of range');
  });
});
