// The overlap and pauseOnFailure options through the one schema: checked when defined (errors name
// the field), stored in the definition's `run` (carried to workers on each job), read back; a stored
// definition of the previous release (no overlap) still reads, and maxInstances/coalesce map onto the
// policies (slotRule), resolved once into the run options' `slot`.
import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { EveryOptions } from '../../src/scheduler/contract/schedule-options.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { occurrenceJobData } from '../../src/store/forms/job-payload.js';
import { slotRule } from '../../src/store/forms/overlap-policy.js';
import { resolveRunOptions } from '../../src/store/forms/run-options.js';
import { decodeDefinition } from '../../src/store/forms/schedule-definition.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { silent } from '../scheduler/helpers.js';

const m = new SchedulerManager({ prefix: 'never-started-overlap', logger: silent, role: 'client' });
const define = (o: EveryOptions) =>
  m.schedule({ name: `s${Math.random()}`, queue: 'q' }, new IntervalTrigger(60), o).def;

function optionsError(fn: () => unknown): ScheduleOptionsError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    return err as ScheduleOptionsError;
  }
  throw new Error('expected a ScheduleOptionsError');
}

describe('overlap and pauseOnFailure options', () => {
  it('are stored in the definition run options, carried on each job, and read back', () => {
    const def = define({ overlap: 'bufferAll', pauseOnFailure: 3 });
    expect(def.run).toMatchObject({ overlap: 'bufferAll', pauseOnFailure: 3 });
    expect(occurrenceJobData(def, 1, 'scheduled', 'p').run).toMatchObject({
      overlap: 'bufferAll',
      pauseOnFailure: 3,
    });
    const { def: back, problem } = decodeDefinition(def.id, JSON.stringify(def));
    expect(problem).toBeUndefined();
    expect(back.run).toEqual(def.run);
  });

  it.each([
    [
      { overlap: 'queue' },
      'overlap',
      'must be one of "skip", "bufferOne", "bufferAll", "cancelOther", "allowAll", got "queue"',
    ],
    [{ overlap: 'skip', maxInstances: 0 }, 'overlap', 'contradicts maxInstances 0'],
    [{ overlap: 'bufferAll', maxInstances: 3 }, 'overlap', 'cannot go with maxInstances 3'],
    [{ pauseOnFailure: 0 }, 'pauseOnFailure', 'must be an integer >= 1, got 0'],
    [{ pauseOnFailure: 1.5 }, 'pauseOnFailure', 'must be an integer >= 1, got 1.5'],
  ])('%j is refused, naming the field, and nothing is defined', (options, field, reason) => {
    const before = internalsOf(m).handlerNames().length;
    const err = optionsError(() => define(options as EveryOptions));
    expect(err.field).toBe(field);
    expect(err.message).toContain(reason);
    expect(internalsOf(m).handlerNames().length).toBe(before);
  });

  it('a stored run of the previous release (no overlap) reads, and maxInstances/coalesce map onto it', () => {
    const previous = {
      name: 'old',
      queue: 'q',
      source: 'runtime',
      trigger: { type: 'interval', seconds: 60 },
      args: [],
      run: { maxInstances: 0, coalesce: false },
      attempts: 1,
      misfire: 'once',
      misfireGraceMs: 60000,
      maxCatchUp: 1000,
    };
    const { def, problem } = decodeDefinition('old', JSON.stringify(previous));
    expect(problem).toBeUndefined();
    expect(resolveRunOptions(def.run).slot).toEqual({ mode: 'none', cap: 0 });
    const bad = decodeDefinition(
      'bad',
      JSON.stringify({ ...previous, run: { ...previous.run, overlap: 'x' } }),
    );
    expect(bad.problem).toContain('run.overlap: must be one of');
  });

  it.each([
    [
      { maxInstances: 1, coalesce: true },
      { mode: 'skip', cap: 1 },
    ],
    [
      { maxInstances: 3, coalesce: true },
      { mode: 'skip', cap: 1 },
    ], // coalesce: one at a time, as before
    [
      { maxInstances: 3, coalesce: false },
      { mode: 'skip', cap: 3 },
    ],
    [
      { maxInstances: 0, coalesce: false },
      { mode: 'none', cap: 0 },
    ],
    [
      { maxInstances: 0, coalesce: true },
      { mode: 'skip', cap: 1 },
    ],
    [
      { maxInstances: 3, coalesce: true, overlap: 'skip' },
      { mode: 'skip', cap: 3 },
    ],
    [
      { maxInstances: 1, coalesce: true, overlap: 'allowAll' },
      { mode: 'none', cap: 0 },
    ],
    [
      { maxInstances: 1, coalesce: true, overlap: 'cancelOther' },
      { mode: 'cancelOther', cap: 1 },
    ],
  ] as const)('slotRule(%j) = %j, resolved once where the run options are read', (run, rule) => {
    expect(slotRule(run)).toEqual(rule);
    // a stored definition with these run options (one of the previous release when it has no
    // `overlap`) decodes, and its run options resolve to the same rule: what the runtime and `why` read
    const stored = {
      name: 'old',
      queue: 'q',
      source: 'runtime',
      trigger: { type: 'interval', seconds: 60 },
      args: [],
      run,
      attempts: 1,
      misfire: 'once',
      misfireGraceMs: 60000,
      maxCatchUp: 1000,
    };
    const { def, problem } = decodeDefinition('old', JSON.stringify(stored));
    expect(problem).toBeUndefined();
    const resolved = resolveRunOptions(def.run);
    expect(resolved.slot).toEqual(rule);
    expect(resolved).toMatchObject(run);
  });

  it('a job that carries no run options (a foreign producer, an older payload) resolves to the defaults', () => {
    expect(resolveRunOptions(undefined)).toEqual({
      maxInstances: 1,
      coalesce: true,
      slot: { mode: 'skip', cap: 1 },
    });
    expect(resolveRunOptions({ maxInstances: 0 }).slot).toEqual({ mode: 'skip', cap: 1 }); // coalesce by default
  });
});
