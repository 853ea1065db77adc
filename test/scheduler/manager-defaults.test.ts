import { afterEach, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { silent } from './helpers.js';

describe("the manager's partition count", () => {
  const saved = process.env.BULLBEAT_PARTITIONS;
  afterEach(() => {
    if (saved === undefined) delete process.env.BULLBEAT_PARTITIONS;
    else process.env.BULLBEAT_PARTITIONS = saved;
  });
  const manager = (options: { partitions?: number } = {}) =>
    new SchedulerManager({ role: 'client', logger: silent, prefix: 'parts', ...options });

  it('takes BULLBEAT_PARTITIONS by default (1 on a single Redis without it); an explicit count wins', async () => {
    delete process.env.BULLBEAT_PARTITIONS;
    const plain = manager();
    expect(internalsOf(plain).partitions).toBe(1);
    process.env.BULLBEAT_PARTITIONS = '24';
    const fromEnv = manager();
    expect(internalsOf(fromEnv).partitions).toBe(24);
    expect(internalsOf(fromEnv).keys.partition(23).due).toMatch(/^\{parts:23/);
    const explicit = manager({ partitions: 4 });
    expect(internalsOf(explicit).partitions).toBe(4);
    await Promise.all([plain.close(), fromEnv.close(), explicit.close()]);
  });

  it('a bad BULLBEAT_PARTITIONS is refused naming it', () => {
    for (const bad of ['0', '2.5', 'many', '2000']) {
      process.env.BULLBEAT_PARTITIONS = bad;
      expect(() => manager()).toThrow(/BULLBEAT_PARTITIONS: must be an integer from 1 to 1024/);
    }
  });
});

describe("the manager's prefix", () => {
  const saved = process.env.BULLBEAT_PREFIX;
  afterEach(() => {
    if (saved === undefined) delete process.env.BULLBEAT_PREFIX;
    else process.env.BULLBEAT_PREFIX = saved;
  });

  const manager = (options: { prefix?: string; defaultQueue?: string } = {}) =>
    new SchedulerManager({ role: 'client', logger: silent, ...options });

  it('takes BULLBEAT_PREFIX by default, as the CLI does', async () => {
    process.env.BULLBEAT_PREFIX = 'from-env';
    const m = manager();
    expect(internalsOf(m).prefix).toBe('from-env');
    expect(internalsOf(m).keys.schedules).toBe('{from-env}:bb:schedules');
    await m.close();
  });

  it('an explicit prefix wins; with neither it is bullbeat', async () => {
    process.env.BULLBEAT_PREFIX = 'from-env';
    const explicit = manager({ prefix: 'mine' });
    expect(internalsOf(explicit).prefix).toBe('mine');
    process.env.BULLBEAT_PREFIX = '';
    const fallback = manager();
    expect(internalsOf(fallback).prefix).toBe('bullbeat');
    // the default queue is named after the prefix: each deployment on a Redis has its own
    expect(internalsOf(explicit).options.defaultQueue).toBe('mine');
    expect(internalsOf(fallback).options.defaultQueue).toBe('bullbeat');
    expect(internalsOf(manager({ prefix: '{team:a}' })).options.defaultQueue).toBe('team-a');
    expect(internalsOf(manager({ prefix: 'mine', defaultQueue: 'bullbeat' })).options.defaultQueue).toBe(
      'bullbeat',
    );
    await explicit.close();
    await fallback.close();
  });
});

describe("the manager's load options", () => {
  it('refuses a claim batch the claim script cannot move in one call, naming the field', () => {
    expect(() => new SchedulerManager({ role: 'client', logger: silent, claimBatch: 5000 })).toThrow(
      /claimBatch: must be at most 4000, got 5000/,
    );
  });

  it('refuses a backpressure that is not a boolean, naming the field', () => {
    expect(
      () =>
        new SchedulerManager({ role: 'client', logger: silent, backpressure: 'yes' as unknown as boolean }),
    ).toThrow(/backpressure: must be a boolean/);
  });
});
