import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Keys, ScheduleDefinition, ScheduleStore } from '../../store/index.js';
import { dueEarlier, spreadOffsetMs } from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import { type UnstagedRecords, unstage, unstageAndRecord } from '../fire/index.js';
import { firstFire } from './first-fire.js';

/**
 * How the controls reach occurrences committed to BullMQ ahead of their instant (staged-jobs.ts). Each
 * runs after the control's own write and its stop notice, so a replica staging an occurrence claimed
 * before the write either sees the notice (and unstages it) or staged it before this removal.
 */
export interface StagedControlContext {
  store: ScheduleStore;
  redis: Redis;
  keys: Keys;
  history: UnstagedRecords;
  queue(name: string): Queue;
  triggerOf(def: ScheduleDefinition): Trigger | undefined;
}

/** Paused: its staged occurrences leave BullMQ, recorded missed (reason `paused`). */
export async function unstagePaused(ctx: StagedControlContext, id: string): Promise<void> {
  const row = await ctx.store.get(id);
  if (!row) return;
  const reach = await ctx.store.fireBudgetReach();
  await unstageAndRecord(ctx.queue(row.def.queue), ctx.history, id, undefined, offsetOf(row.def), reach);
}

/** Removed (its history forgotten): its staged occurrences leave BullMQ. */
export async function unstageRemoved(
  ctx: StagedControlContext,
  def: ScheduleDefinition,
  id: string,
): Promise<void> {
  await unstage(ctx.queue(def.queue), id, undefined, offsetOf(def), await ctx.store.fireBudgetReach());
}

/** Where a schedule's staged jobs are scored past their fire time: its spread offset. */
function offsetOf(def: ScheduleDefinition): number {
  return spreadOffsetMs(def.id, def.spreadMs);
}

/**
 * Updated: its staged occurrences (jobs of the old definition, in the old queue) leave BullMQ. One that
 * the new definition still fires at, on an active schedule, goes back to `due` at its time: claimed and
 * staged again, as the new definition says. Any other is recorded missed (`paused`).
 */
export async function restageUpdated(
  ctx: StagedControlContext,
  old: ScheduleDefinition,
  id: string,
): Promise<void> {
  const reach = await ctx.store.fireBudgetReach();
  const removed = await unstage(ctx.queue(old.queue), id, undefined, offsetOf(old), reach);
  if (removed.length === 0) return;
  const row = await ctx.store.get(id);
  const trigger = row?.state.status === 'a' ? ctx.triggerOf(row.def) : undefined;
  for (const at of removed) {
    let kept = false;
    try {
      kept = row != null && trigger !== undefined && firstFire(row.def, trigger, at - 1) === at;
    } catch {
      kept = false; // a trigger that throws: the claim that plans it next errors the schedule
    }
    if (kept && (await dueEarlier(ctx.redis, ctx.keys, id, at))) continue;
    if (row) {
      await ctx.history.merge(
        id,
        at,
        false,
        { scheduleId: id, fireAt: at, kind: 'scheduled', outcome: 'missed', reason: 'paused' },
        ['missed'],
      );
    }
  }
}
