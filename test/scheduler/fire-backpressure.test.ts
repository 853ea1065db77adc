// coalesceBehind (pure: no Redis): which claimed occurrences are coalesced because their schedule's
// next occurrence was due already when they were claimed, and what is left alone.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { coalesceBehind } from '../../src/scheduler/fire/fire-backpressure.js';
import type { Batch, FireLoopDeps, Item } from '../../src/scheduler/fire/fire-loop-types.js';
import { planOccurrence } from '../../src/scheduler/fire/occurrence-planner.js';
import type { ScheduleDefinition } from '../../src/store/forms/definition-schema.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { definition, everyMs } from './helpers.js';

const T0 = 1_800_000_000_000;
const logs: unknown[] = [];
const logger = pino({ level: 'warn' }, { write: (line: string) => logs.push(JSON.parse(line)) });

const def = (id: string, over: Partial<ScheduleDefinition> = {}) => definition({ id, name: id, ...over });

function item(batch: Batch, d: ScheduleDefinition, trigger: Trigger, now: number, reclaimed = false): Item {
  const fireAt = T0;
  const plan = planOccurrence({ def: d, trigger, fireAt, now, fired: 0 });
  batch.left++;
  return {
    claim: { id: d.id, fireAt, claim: `${fireAt}|t`, reclaimed, defJSON: '{}', state: null },
    cached: { defJSON: '{}', def: d, trigger },
    plan,
    batch,
    stopSeq: 0,
    claimedAt: now,
  };
}

const deps = (backpressure: boolean) =>
  ({ options: { backpressure }, logger, queue: () => undefined }) as unknown as Pick<
    FireLoopDeps,
    'options' | 'queue' | 'logger'
  >;

describe('coalesceBehind', () => {
  it('re-plans the claims more than a period late to run the latest due now; leaves the rest', () => {
    const batch: Batch = { token: 't', left: 0, ready: [] };
    const sec = everyMs(1000);
    const now = T0 + 2500;
    const behind = item(batch, def('late'), sec, now);
    const slow = item(batch, def('slow'), everyMs(5000), now); // late, but its next is not due yet
    const reclaimed = item(batch, def('taken-over'), sec, now, true);
    const all = item(
      batch,
      def('all', {
        misfire: 'all',
        run: { maxInstances: 1, overlap: 'bufferAll', slot: { mode: 'bufferAll', cap: 1 } },
      }),
      sec,
      now,
    );
    const held = coalesceBehind([behind, slow, reclaimed, all], now, deps(true));
    expect([...held]).toEqual([behind]);
    expect(behind.plan).toMatchObject({ coalesced: { count: 2 }, next: T0 + 3000 });
    expect(behind.plan.enqueue?.fireAt).toBe(T0 + 2000); // enqueued by this claim, not left to the next
    expect(batch.ready).toEqual([]); // still to be enqueued: nothing completes yet
    expect(batch.left).toBe(4);
    for (const i of [slow, reclaimed, all]) expect(i.plan.enqueue?.fireAt).toBe(T0);
  });

  it('nothing with backpressure off', () => {
    const batch: Batch = { token: 't', left: 0, ready: [] };
    const late = item(batch, def('late'), everyMs(1000), T0 + 2500);
    expect(coalesceBehind([late], T0 + 2500, deps(false)).size).toBe(0);
    expect(late.plan.enqueue?.fireAt).toBe(T0);
  });

  it('a trigger that throws further on: the planned occurrence is enqueued, the failure logged', () => {
    const batch: Batch = { token: 't', left: 0, ready: [] };
    const grid = everyMs(1000);
    const breaks: Trigger = {
      nextFire(last, now) {
        if (last !== null && last > T0) throw new Error('broken after the first step');
        return grid.nextFire(last, now);
      },
    };
    const late = item(batch, def('breaks'), breaks, T0 + 2500);
    logs.length = 0;
    expect(coalesceBehind([late], T0 + 2500, deps(true)).size).toBe(0);
    expect(late.plan.enqueue?.fireAt).toBe(T0);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ scheduleId: 'breaks' });
  });
});
