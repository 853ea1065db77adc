import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { EveryOptions } from '../../src/scheduler/contract/schedule-options.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { decodeDefinition } from '../../src/store/forms/schedule-definition.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { silent } from '../scheduler/helpers.js';

const m = new SchedulerManager({ prefix: 'never-started-schema', logger: silent, role: 'client' });

/** A definition as today's release stores it. */
const stored = () =>
  m.schedule({ name: 'report', queue: 'reports' }, new IntervalTrigger(60), { maxInstances: 2 }).def;

/** The error `fn` throws (a ScheduleOptionsError), or fails the test. */
function optionsError(fn: () => unknown): ScheduleOptionsError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    return err as ScheduleOptionsError;
  }
  throw new Error('expected a ScheduleOptionsError');
}

describe('definition codec', () => {
  it('a definition written by today release decodes to the same value', () => {
    const def = stored();
    const { def: back, problem } = decodeDefinition(def.id, JSON.stringify(def));
    expect(problem).toBeUndefined();
    expect(back).toEqual(def);
  });

  it.each([
    [{ misfire: 'later' }, 'misfire: must be one of "once", "all", "skip", got "later"'],
    [{ attempts: '3' }, 'attempts: must be an integer >= 1, got "3"'],
    [{ run: { maxInstances: -1, coalesce: true } }, 'run.maxInstances: must be an integer >= 0, got -1'],
    [{ misfireGraceMs: null }, 'misfireGraceMs: must be an integer >= 0, got null'],
    [{ startAt: 1e20 }, 'startAt:'],
  ])('a stored row with a bad field (%j) decodes as errored, naming the field', (patch, reason) => {
    const def = stored();
    const { def: standIn, problem } = decodeDefinition(def.id, JSON.stringify({ ...def, ...patch }));
    expect(problem).toContain(`cannot read its definition: ${reason}`);
    expect(standIn).toMatchObject({ id: def.id, name: 'report', queue: 'reports' });
    expect(standIn.trigger).toEqual({ type: 'custom', kind: 'unreadable' });
  });

  it('a row that is not JSON, or lacks what readers rely on, still decodes as a stand-in', () => {
    expect(decodeDefinition('x', '{"name":').problem).toContain('cannot read its definition');
    const { def, problem } = decodeDefinition('y', JSON.stringify({ name: 'n' }));
    expect(problem).toContain('cannot read its definition');
    expect(def).toMatchObject({ id: 'y', name: 'n', queue: '' });
  });
});

describe('timezone outside cron()', () => {
  it('every() refuses a timezone, naming the field (an interval has no time zone)', () => {
    // a JavaScript caller, or one reading Sillo's docs
    const tz = { timezone: 'Europe/Paris' } as unknown as EveryOptions;
    const err = optionsError(() => m.every(60, tz)(async function tick() {}));
    expect(err.field).toBe('timezone');
    expect(err.message).toContain('schedule "tick": timezone: ');
    expect(err.reason).toContain('cron(');
  });

  it('schedule() refuses a timezone: the trigger carries its own', () => {
    const err = optionsError(() =>
      // biome-ignore lint/suspicious/noExplicitAny: a JavaScript caller
      m.schedule({ name: 'tz' }, new IntervalTrigger(60), { timezone: 'Europe/Paris' } as any),
    );
    expect(err.field).toBe('timezone');
  });

  it('cron() honours it', () => {
    const job = m.cron('0 9 * * *', { timezone: 'Europe/Paris' })(async function nine() {});
    expect(job?.def.trigger).toMatchObject({ type: 'cron', timezone: 'Europe/Paris' });
  });
});

describe('schedule options: one rule each', () => {
  it('an unknown option is refused, naming it, instead of being ignored', () => {
    const err = optionsError(() =>
      // biome-ignore lint/suspicious/noExplicitAny: a typo a JavaScript caller can make
      m.schedule({ name: 'typo' }, new IntervalTrigger(60), { maxInstance: 2 } as any),
    );
    expect(err.message).toBe('schedule "typo": maxInstance: unknown option');
  });

  it('an ISO start instant is read in UTC as the API reads it, and a bad backoff names its field', () => {
    const job = m.schedule({ name: 'iso' }, new IntervalTrigger(60), {
      // biome-ignore lint/suspicious/noExplicitAny: the API's wire form
      startAt: '2030-01-01T00:00:00' as any,
    });
    expect(job.def.startAt).toBe(Date.UTC(2030, 0, 1));
    const err = optionsError(() =>
      // biome-ignore lint/suspicious/noExplicitAny: hostile input
      m.schedule({ name: 'b' }, new IntervalTrigger(60), { backoff: { type: 'fixed', delay: -5 } as any }),
    );
    expect(err.field).toBe('backoff.delay');
  });
});
