import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { silent } from './helpers.js';

describe("the manager's replicaAcks option", () => {
  const saved = process.env.BULLBEAT_REPLICA_ACKS;
  afterEach(() => {
    if (saved === undefined) delete process.env.BULLBEAT_REPLICA_ACKS;
    else process.env.BULLBEAT_REPLICA_ACKS = saved;
  });
  const manager = (replicaAcks?: unknown) =>
    new SchedulerManager({
      role: 'client',
      logger: silent,
      ...(replicaAcks !== undefined && { replicaAcks: replicaAcks as false }),
    });

  it('is off by default; an object turns it on with 1 replica and 50 ms', () => {
    delete process.env.BULLBEAT_REPLICA_ACKS;
    expect(internalsOf(manager()).options.replicaAcks).toBeUndefined();
    expect(internalsOf(manager(false)).options.replicaAcks).toBeUndefined();
    expect(internalsOf(manager({})).options.replicaAcks).toEqual({ replicas: 1, timeoutMs: 50 });
    expect(internalsOf(manager({ replicas: 2, timeoutMs: 200 })).options.replicaAcks).toEqual({
      replicas: 2,
      timeoutMs: 200,
    });
  });

  it('refuses bad values, naming the field', () => {
    expect(() => manager({ replicas: 0 })).toThrow(
      /scheduler: replicaAcks\.replicas: must be an integer from 1 to 16, got 0/,
    );
    expect(() => manager({ replicas: 1.5 })).toThrow(/replicaAcks\.replicas: must be an integer/);
    expect(() => manager({ timeoutMs: 0 })).toThrow(
      /replicaAcks\.timeoutMs: must be an integer from 1 to 60000 \(ms; WAIT 0 would wait forever\), got 0/,
    );
    expect(() => manager({ timeoutMs: '50' })).toThrow(/replicaAcks\.timeoutMs: must be an integer/);
    expect(() => manager({ replica: 1 })).toThrow(/replicaAcks: unknown field "replica"/);
    expect(() => manager(true)).toThrow(/replicaAcks: must be false or \{ replicas, timeoutMs \}, got true/);
  });

  it('reads BULLBEAT_REPLICA_ACKS (replicas[:timeoutMs]) when the option is not given; the option wins', () => {
    process.env.BULLBEAT_REPLICA_ACKS = '1';
    expect(internalsOf(manager()).options.replicaAcks).toEqual({ replicas: 1, timeoutMs: 50 });
    process.env.BULLBEAT_REPLICA_ACKS = '2:120';
    expect(internalsOf(manager()).options.replicaAcks).toEqual({ replicas: 2, timeoutMs: 120 });
    expect(internalsOf(manager(false)).options.replicaAcks).toBeUndefined();
    for (const off of ['0', 'off', '']) {
      process.env.BULLBEAT_REPLICA_ACKS = off;
      expect(internalsOf(manager()).options.replicaAcks).toBeUndefined();
    }
    process.env.BULLBEAT_REPLICA_ACKS = 'one';
    expect(() => manager()).toThrow(/BULLBEAT_REPLICA_ACKS: expected replicas\[:timeoutMs\]/);
    process.env.BULLBEAT_REPLICA_ACKS = '1:0';
    expect(() => manager()).toThrow(/BULLBEAT_REPLICA_ACKS: timeoutMs must be an integer from 1 to 60000/);
  });
});
