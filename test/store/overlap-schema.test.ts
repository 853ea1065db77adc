// The overlap and pauseOnFailure options through the one schema: checked when defined (errors name
// the field), resolved once into the rule (`run.slot`) stored in the definition and carried on each
// job; `coalesce` a deprecated alias resolved at definition (one warning per schedule); a stored
// definition of an earlier release (no slot) reads, its rule derived once on read.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { EveryOptions } from '../../src/scheduler/contract/schedule-options.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { occurrenceJobData } from '../../src/store/forms/job-payload.js';
import { earlierSlotRule } from '../../src/store/forms/overlap-policy.js';
import { resolveRunOptions } from '../../src/store/forms/run-options.js';
import { decodeDefinition, encodeDefinition } from '../../src/store/forms/schedule-definition.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { silent } from '../scheduler/helpers.js';

const m = new SchedulerManager({ prefix: 'never-started-overlap', logger: silent, role: 'client' });
const define = (o: EveryOptions, manager = m, name = `s${Math.random()}`) =>
  manager.schedule({ name, queue: 'q' }, new IntervalTrigger(60), o).def;

function optionsError(fn: () => unknown): ScheduleOptionsError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    return err as ScheduleOptionsError;
  }
  throw new Error('expected a ScheduleOptionsError');
}

/** A stored row of an earlier release: full, with `coalesce`, and no `slot`. */
const earlierRow = (run: Record<string, unknown>) => ({
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
});

describe('overlap and pauseOnFailure options', () => {
  it('are stored in the definition run options with their rule, carried on each job, and read back', () => {
    const def = define({ overlap: 'bufferAll', pauseOnFailure: 3 });
    expect(def.run).toMatchObject({
      overlap: 'bufferAll',
      maxInstances: 1,
      slot: { mode: 'bufferAll', cap: 1 },
      pauseOnFailure: 3,
    });
    expect(occurrenceJobData(def, 1, 'scheduled', 'p').run).toEqual(def.run);
    const stored = encodeDefinition(def);
    expect(JSON.parse(stored).run).toMatchObject({
      overlap: 'bufferAll',
      slot: { mode: 'bufferAll', cap: 1 },
    });
    const { def: back, problem } = decodeDefinition(def.id, stored);
    expect(problem).toBeUndefined();
    expect(back.run).toEqual(def.run);
  });

  it('a stored rule is read as it is, never derived again from the fields beside it', () => {
    // a rule no derivation from these fields gives: only the stored one can say cap 5
    const row = { name: 'n', queue: 'q', trigger: { type: 'interval', seconds: 60 } };
    const run = { overlap: 'skip', slot: { mode: 'skip', cap: 5 } };
    const { def, problem } = decodeDefinition('n', JSON.stringify({ ...row, run }));
    expect(problem).toBeUndefined();
    expect(def.run.slot).toEqual({ mode: 'skip', cap: 5 });
    expect(
      resolveRunOptions({ maxInstances: 1, overlap: 'skip', slot: { mode: 'skip', cap: 5 } }).slot,
    ).toEqual({
      mode: 'skip',
      cap: 5,
    });
    const bad = decodeDefinition(
      'n',
      JSON.stringify({ ...row, run: { ...run, slot: { mode: 'often', cap: 1 } } }),
    );
    expect(bad.problem).toContain('run.slot.mode: must be one of');
  });

  it.each([
    ['the defaults', {}, { overlap: 'skip' }],
    ['coalesce: true', { coalesce: true }, { overlap: 'skip' }],
    ['coalesce: true, maxInstances: 1', { coalesce: true, maxInstances: 1 }, { overlap: 'skip' }],
    ['coalesce: true, overlap skip', { coalesce: true, overlap: 'skip' }, { overlap: 'skip' }],
    ['coalesce: false', { coalesce: false }, { overlap: 'skip', maxInstances: 1 }],
    [
      'coalesce: false, maxInstances: 3',
      { coalesce: false, maxInstances: 3 },
      { overlap: 'skip', maxInstances: 3 },
    ],
    ['coalesce: false, maxInstances: 0', { coalesce: false, maxInstances: 0 }, { overlap: 'allowAll' }],
    ['maxInstances: 0', { maxInstances: 0 }, { overlap: 'allowAll' }],
    [
      'coalesce: false, overlap bufferAll',
      { coalesce: false, overlap: 'bufferAll' },
      { overlap: 'bufferAll' },
    ],
  ] as const)('%s resolves to the same rule as %j', (_, alias, word) => {
    const a = define(alias as EveryOptions).run;
    const b = define(word as EveryOptions).run;
    expect(a.slot).toEqual(b.slot);
    expect(a.overlap).toBe(b.overlap);
    expect(a).not.toHaveProperty('coalesce'); // resolved at definition: never stored
  });

  it.each([
    [{ overlap: 'skip' }, { mode: 'skip', cap: 1 }],
    [
      { overlap: 'skip', maxInstances: 3 },
      { mode: 'skip', cap: 3 },
    ],
    [{ maxInstances: 3 }, { mode: 'skip', cap: 3 }], // maxInstances means N at once
    [{ overlap: 'allowAll' }, { mode: 'none', cap: 0 }],
    [{ overlap: 'cancelOther' }, { mode: 'cancelOther', cap: 1 }],
    [{ overlap: 'bufferOne' }, { mode: 'bufferOne', cap: 1 }],
  ] as const)('%j is stored with the rule %j', (options, rule) => {
    const def = define(options as EveryOptions);
    expect(def.run.slot).toEqual(rule);
    expect(decodeDefinition(def.id, encodeDefinition(def)).def.run.slot).toEqual(rule);
  });

  it.each([
    [
      { overlap: 'sometimes' },
      'overlap',
      'must be one of "skip", "bufferOne", "bufferAll", "cancelOther", "allowAll", got "sometimes"',
    ],
    [{ overlap: 'queue' }, 'overlap', 'got "queue"'],
    [{ coalesce: true, overlap: 'bufferAll' }, 'coalesce', 'contradicts overlap "bufferAll"'],
    [{ coalesce: true, overlap: 'allowAll' }, 'coalesce', 'contradicts overlap "allowAll"'],
    [{ coalesce: true, maxInstances: 3 }, 'coalesce', 'contradicts maxInstances 3'],
    [{ coalesce: 'yes' }, 'coalesce', 'must be a boolean, got "yes"'],
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

  it('coalesce is warned of once per schedule, through the manager logger', () => {
    const lines: { msg: string; scheduleId?: string; level: number }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const logger = pino({ level: 'warn' }, sink);
    const mm = new SchedulerManager({ prefix: 'never-started-coalesce', logger, role: 'client' });
    define({ coalesce: true }, mm, 'a');
    define({ coalesce: true }, mm, 'a'); // defined again (a second import of the jobs module)
    define({ coalesce: false, maxInstances: 2 }, mm, 'b');
    define({ overlap: 'skip' }, mm, 'c');
    const warned = lines.filter((l) => l.msg.includes('coalesce is deprecated'));
    expect(warned.map((l) => l.scheduleId)).toEqual(['a', 'b']);
    expect(warned[0]!.msg).toContain('read as overlap "skip" with maxInstances 1');
    expect(warned[1]!.msg).toContain('read as overlap "skip" with maxInstances 2');
  });

  it('a stored run of an earlier release (no slot) reads, its rule derived once on read', () => {
    const { def, problem } = decodeDefinition(
      'old',
      JSON.stringify(earlierRow({ maxInstances: 0, coalesce: false })),
    );
    expect(problem).toBeUndefined();
    expect(def.run).toEqual({ maxInstances: 0, overlap: 'allowAll', slot: { mode: 'none', cap: 0 } });
    const bad = decodeDefinition(
      'bad',
      JSON.stringify(earlierRow({ maxInstances: 1, coalesce: true, overlap: 'x' })),
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
    ], // coalesce: one at a time, as it was
    [{ maxInstances: 3 }, { mode: 'skip', cap: 1 }], // an earlier compact row: coalesce true by default
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
  ] as const)('an earlier row %j reads with the rule %j (as its release read it)', (run, rule) => {
    expect(earlierSlotRule(run).slot).toEqual(rule);
    const { def, problem } = decodeDefinition('old', JSON.stringify(earlierRow(run)));
    expect(problem).toBeUndefined();
    expect(def.run.slot).toEqual(rule);
    // and a job of that release, carrying the same run options, resolves to the same rule
    expect(resolveRunOptions(run).slot).toEqual(rule);
    // the derived rule is written back with the row on its next save, so it is derived once
    const again = decodeDefinition('old', encodeDefinition(def)).def;
    expect(again.run.slot).toEqual(rule);
  });

  it('a job that carries no run options (a foreign producer) resolves to the defaults', () => {
    expect(resolveRunOptions(undefined)).toEqual({
      maxInstances: 1,
      overlap: 'skip',
      slot: { mode: 'skip', cap: 1 },
    });
    expect(resolveRunOptions({ maxInstances: 0 }).slot).toEqual({ mode: 'skip', cap: 1 }); // an earlier job: coalesce by default
  });
});
