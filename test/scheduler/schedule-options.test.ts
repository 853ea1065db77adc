import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { everyMs, silent } from './helpers.js';

describe('schedule options', () => {
  const m = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });

  it('resolves Sillo defaults once', () => {
    const job = m.schedule(async function nightly() {}, everyMs(1000));
    expect(job.def).toMatchObject({
      id: 'nightly',
      name: 'nightly',
      queue: 'never-started', // the default queue is named after the prefix
      source: 'code',
      args: [],
      run: { maxInstances: 1, overlap: 'skip', slot: { mode: 'skip', cap: 1 } },
      attempts: 1,
      misfire: 'once',
      misfireGraceMs: 60_000,
      maxCatchUp: 1000,
      trigger: { type: 'custom', kind: 'Object' },
    });
  });

  it('errors name the schedule and the field', () => {
    const bad = (options: object) => () => m.schedule(async function job1() {}, everyMs(1000), options);
    expect(bad({ maxInstances: -1 })).toThrow(ScheduleOptionsError);
    expect(bad({ maxInstances: -1 })).toThrow(
      'schedule "job1": maxInstances: must be an integer >= 0, got -1',
    );
    expect(bad({ misfire: 'later' })).toThrow(
      'schedule "job1": misfire: must be one of "once", "all", "skip", got "later"',
    );
    expect(bad({ queue: 'a:b' })).toThrow('schedule "job1": queue: must be a non-empty string without ":"');
    expect(bad({ startAt: 10, endAt: 5 })).toThrow('schedule "job1": endAt: must not be before startAt');
    expect(bad({ args: 'x' })).toThrow('schedule "job1": args: must be an array, got "x"');
    expect(() => m.schedule(async () => {}, everyMs(1000))).toThrow('name: required');
    expect(() => new SchedulerManager({ claimLeaseMs: 5 })).toThrow(
      'scheduler: claimLeaseMs: must be an integer >= 100, got 5',
    );
    expect(() => new SchedulerManager({ claimLeaseMs: 1000, claimAheadMs: 300 })).toThrow(
      'scheduler: claimAheadMs: must be at most a quarter of claimLeaseMs (1000 ms), got 300',
    );
    expect(() => new SchedulerManager({ claimAheadMs: -1 })).toThrow(
      'scheduler: claimAheadMs: must be an integer >= 0, got -1',
    );
  });
});
