import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { ScheduleIndex } from '../../src/store/reads/schedule-index.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { deleteKeys, quietLogger } from './harness.js';

describe('ScheduleIndex', () => {
  const prefix = `bbdash-idx-${randomUUID().slice(0, 8)}`;
  let m: SchedulerManager;
  beforeAll(() => {
    m = new SchedulerManager({ prefix, role: 'client', defaultQueue: `${prefix}-q`, logger: quietLogger() });
  });
  afterAll(async () => {
    await m.close();
    await deleteKeys([`{${prefix}}*`]);
  });

  const add = (name: string, id?: string) =>
    m.schedule({ name }, new IntervalTrigger(60), id === undefined ? {} : { id }).saved;

  it("orders by name, searches id/name/queue, and shows other writers' changes at the next page (the list indexes)", async () => {
    const index = new ScheduleIndex(internalsOf(m).redis, internalsOf(m).keys);
    await add('zeta');
    await add('alpha "quoted" \\ name', 'weird-id');
    await add('mid');
    expect((await index.page({ offset: 0, limit: 10 })).ids).toEqual(['weird-id', 'mid', 'zeta']);
    expect((await index.page({ search: 'QUOTED', offset: 0, limit: 10 })).ids).toEqual(['weird-id']);
    expect((await index.page({ search: 'weird', offset: 0, limit: 10 })).total).toBe(1);
    expect((await index.page({ queue: `${prefix}-q`, offset: 1, limit: 1 })).ids).toEqual(['mid']);

    // changes by another writer: a page reads the indexes, which the writer's scripts kept
    await add('beta');
    await m.pause('zeta');
    await m.remove('mid');
    expect((await index.page({ offset: 0, limit: 10 })).ids).toEqual(['weird-id', 'beta', 'zeta']);
    expect((await index.page({ status: 'paused', offset: 0, limit: 10 })).ids).toEqual(['zeta']);
    expect(await index.statusCounts()).toEqual({
      active: 2,
      paused: 1,
      completed: 0,
      cancelled: 0,
      errored: 0,
    });
    expect(await index.queues()).toEqual([`${prefix}-q`]);

    // a rename is listed under its new name at once
    await m.schedule({ name: 'renamed' }, new IntervalTrigger(60), { id: 'beta' }).saved;
    expect((await index.page({ search: 'renamed', offset: 0, limit: 10 })).ids).toEqual(['beta']);
    expect((await index.page({ offset: 0, limit: 10 })).ids).toEqual(['weird-id', 'beta', 'zeta']);
  });
});
