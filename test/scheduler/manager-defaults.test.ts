import { afterEach, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/scheduler-manager.js';
import { silent } from './helpers.js';

describe("the manager's prefix", () => {
  const saved = process.env.BULLBEAT_PREFIX;
  afterEach(() => {
    if (saved === undefined) delete process.env.BULLBEAT_PREFIX;
    else process.env.BULLBEAT_PREFIX = saved;
  });

  const manager = (options: { prefix?: string } = {}) =>
    new SchedulerManager({ role: 'client', logger: silent, ...options });

  it('takes BULLBEAT_PREFIX by default, as the CLI does', async () => {
    process.env.BULLBEAT_PREFIX = 'from-env';
    const m = manager();
    expect(m.prefix).toBe('from-env');
    expect(m.keys.schedules).toBe('{from-env}:bb:schedules');
    await m.close();
  });

  it('an explicit prefix wins; with neither it is bullbeat', async () => {
    process.env.BULLBEAT_PREFIX = 'from-env';
    const explicit = manager({ prefix: 'mine' });
    expect(explicit.prefix).toBe('mine');
    process.env.BULLBEAT_PREFIX = '';
    const fallback = manager();
    expect(fallback.prefix).toBe('bullbeat');
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
