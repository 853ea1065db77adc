// The tuning knobs live in one `tuning` object on the manager's and the worker's options; the same
// names at the top level are deprecated aliases, read as they are, with one warning per process. An
// unknown tuning key, a bad value or a knob given both ways with two values is refused naming it.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/config-error.js';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { resolveWorkerOptions } from '../../src/queue/create-worker.js';
import type { CreateWorkerOptions } from '../../src/queue/worker-options.js';
import type { SchedulerManagerOptions } from '../../src/scheduler/contract/scheduler-manager-options.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { StandInScheduler } from '../queue/stand-in-scheduler.js';

/** A logger whose warnings the test reads. */
function capture() {
  const warnings: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      const line = JSON.parse(String(chunk)) as { level: number; msg: string };
      if (line.level === 40) warnings.push(line.msg);
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, sink), warnings };
}

const manager = (o: SchedulerManagerOptions) =>
  new SchedulerManager({ prefix: 'never-started-tuning', role: 'client', ...o });

function refusal<E extends Error>(fn: () => unknown, type: new (...a: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error('expected a refusal');
}

describe("the manager's tuning", () => {
  const tuning = {
    claimBatch: 200,
    claimLeaseMs: 2000,
    claimAheadMs: 100,
    maxSleepMs: 5000,
    backpressure: false,
    commitAhead: false,
    replicaAcks: { replicas: 2, timeoutMs: 80 },
  };

  it('applies each knob of tuning, and the deprecated top-level names resolve to the same, with one warning', () => {
    const given = capture();
    const nested = internalsOf(manager({ logger: given.logger, tuning })).options;
    expect(nested).toMatchObject({ ...tuning });
    expect(given.warnings).toEqual([]);

    const old = capture();
    const top = internalsOf(manager({ logger: old.logger, ...tuning })).options;
    for (const k of Object.keys(tuning) as (keyof typeof tuning)[]) expect(top[k]).toEqual(nested[k]);
    expect(old.warnings).toHaveLength(1);
    expect(old.warnings[0]).toContain(
      'claimBatch, claimLeaseMs, claimAheadMs, maxSleepMs, backpressure, commitAhead, replicaAcks at the top level are deprecated',
    );
    // the same value given both ways is no contradiction
    expect(internalsOf(manager({ claimBatch: 200, tuning: { claimBatch: 200 } })).options.claimBatch).toBe(
      200,
    );
  });

  it.each([
    [{ tuning: { claimBatches: 10 } }, 'tuning.claimBatches', 'unknown tuning option (known: claimBatch,'],
    [{ tuning: { groupPollMs: 10 } }, 'tuning.groupPollMs', 'unknown tuning option'], // a worker's knob
    [{ tuning: 5 }, 'tuning', 'must be an object { claimBatch,'],
    [{ tuning: { claimLeaseMs: 5 } }, 'tuning.claimLeaseMs', 'must be an integer >= 100, got 5'],
    [{ claimLeaseMs: 5 }, 'claimLeaseMs', 'must be an integer >= 100, got 5'], // named as given
    [{ tuning: { claimBatch: 5000 } }, 'tuning.claimBatch', 'must be at most 4000, got 5000'],
    [{ tuning: { backpressure: 'no' } }, 'tuning.backpressure', 'must be a boolean, got no'],
    [
      { tuning: { replicaAcks: { replicas: 0 } } },
      'tuning.replicaAcks.replicas',
      'must be an integer from 1 to 16',
    ],
    [
      { claimBatch: 100, tuning: { claimBatch: 200 } },
      'tuning.claimBatch',
      '200 contradicts the deprecated top-level claimBatch 100',
    ],
  ])('%j is refused naming %s', (options, field, reason) => {
    const err = refusal(() => manager(options as SchedulerManagerOptions), ScheduleOptionsError);
    expect(err.field).toBe(field);
    expect(err.message).toContain(reason);
  });
});

describe("the worker's tuning", () => {
  const scheduler = new StandInScheduler('never-started-tuning', ['q']);
  const resolve = (o: CreateWorkerOptions) => resolveWorkerOptions(scheduler, { queues: ['q'], ...o });
  const tuning = { leaseRenewMs: 700, groupPollMs: 40, slotWaitPollMs: 300 };

  it('applies each knob of tuning, and the deprecated top-level names resolve to the same, with one warning', async () => {
    const given = capture();
    const nested = await resolve({ logger: given.logger, tuning });
    expect(nested).toMatchObject(tuning);
    expect(given.warnings).toEqual([]);
    const old = capture();
    const top = await resolve({ logger: old.logger, ...tuning });
    expect(top).toMatchObject(tuning);
    expect(old.warnings).toEqual([
      'bullbeat: worker options leaseRenewMs, groupPollMs, slotWaitPollMs at the top level are deprecated: give them in tuning: { leaseRenewMs, groupPollMs, slotWaitPollMs } (docs/tuning.md)',
    ]);
    expect((await resolve({})).groupPollMs).toBe(100); // the defaults
  });

  it.each([
    [
      { tuning: { claimBatch: 10 } },
      'tuning.claimBatch',
      'unknown tuning option (known: leaseRenewMs, groupPollMs, slotWaitPollMs, recordLagMs, outcomeHoldMs)',
    ],
    [{ tuning: { groupPollMs: 0 } }, 'tuning.groupPollMs', 'must be an integer >= 1 (ms), got 0'],
    [{ slotWaitPollMs: 'soon' }, 'slotWaitPollMs', 'must be an integer >= 1 (ms), got "soon"'],
    [
      { groupPollMs: 50, tuning: { groupPollMs: 60 } },
      'tuning.groupPollMs',
      'contradicts the deprecated top-level groupPollMs 50',
    ],
  ])('%j is refused naming %s', async (options, setting, reason) => {
    const err = (await resolve(options as CreateWorkerOptions).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.setting).toBe(setting);
    expect(err.message).toContain(reason);
  });
});
