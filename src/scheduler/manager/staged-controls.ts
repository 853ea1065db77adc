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

/** How far before now (ms, on top of the spread and the cap's reach) a staged job's fire time may lie. */
const CANDIDATES_MARGIN_MS = 60_000;

/**
 * Where a schedule's staged jobs may be: the fire times its records index since the earliest a staged
 * job could still wait for (its spread offset, or the fire-rate cap's delay, ago), each looked up by
 * its job id; or, where the records cannot tell (`ScheduleStore.stagedCandidates`: a claim held, an
 * index trimmed within that span), every staged job of it in the queue (`undefined`: search). A pause
 * of thousands then reads a few records each, not the queue's delayed jobs once per schedule.
 */
async function stagedFireTimes(
  ctx: StagedControlContext,
  id: string,
  offsetMs: number,
  reach: number,
): Promise<number[] | undefined> {
  const now = Date.now();
  const from = now - Math.max(offsetMs, reach - now) - CANDIDATES_MARGIN_MS;
  const found = await ctx.store.stagedCandidates(id, from);
  return found === 'search' ? undefined : found;
}

/** Where a schedule's staged jobs may be (see `stagedFireTimes`), read before a control changes it. */
export interface StagedReach {
  offsetMs: number;
  /** How far the fire-rate cap reaches (`fireBudgetReach`). */
  reach: number;
  /** The candidate fire times; `undefined`: search the queue. */
  fireTimes: number[] | undefined;
}

/** Read where a schedule's staged jobs may be: before a removal, while its records still say. */
export async function stagedReach(
  ctx: StagedControlContext,
  def: ScheduleDefinition,
  id: string,
): Promise<StagedReach> {
  const offsetMs = offsetOf(def);
  const reach = await ctx.store.fireBudgetReach();
  return { offsetMs, reach, fireTimes: await stagedFireTimes(ctx, id, offsetMs, reach) };
}

/** `take` of each candidate fire time (or a search of the queue): the fire times removed. */
async function unstageCandidates(
  where: StagedReach,
  take: (fireAt: number | undefined, offsetMs: number, reach: number) => Promise<number[]>,
): Promise<number[]> {
  const { offsetMs, reach, fireTimes } = where;
  if (fireTimes === undefined) return take(undefined, offsetMs, reach);
  const removed = await Promise.all(fireTimes.map((at) => take(at, offsetMs, reach)));
  return removed.flat();
}

/** Paused: its staged occurrences leave BullMQ, recorded missed (reason `paused`). */
export async function unstagePaused(ctx: StagedControlContext, id: string): Promise<void> {
  const row = await ctx.store.get(id);
  if (!row) return;
  const queue = ctx.queue(row.def.queue);
  await unstageCandidates(await stagedReach(ctx, row.def, id), (at, offset, reach) =>
    unstageAndRecord(queue, ctx.history, id, at, offset, reach),
  );
}

/**
 * Removed (its history forgotten): its staged occurrences leave BullMQ, found where `stagedReach`, read
 * before the removal took its records, said. One staged after that read is a replica's, taken back on
 * the removal's stop notice.
 */
export async function unstageRemoved(
  ctx: StagedControlContext,
  def: ScheduleDefinition,
  id: string,
  where: StagedReach,
): Promise<void> {
  const queue = ctx.queue(def.queue);
  await unstageCandidates(where, (at, offset, reach) => unstage(queue, id, at, offset, reach));
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
  const queue = ctx.queue(old.queue);
  const removed = await unstageCandidates(await stagedReach(ctx, old, id), (at, offset, reach) =>
    unstage(queue, id, at, offset, reach),
  );
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
