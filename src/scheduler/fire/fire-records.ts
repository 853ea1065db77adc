import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Claim, Completion, RunRecord, ScheduleDefinition } from '../../store/index.js';
import { occurrenceField, occurrenceJobId } from '../../store/index.js';
import type { SchedulerEvents } from '../contract/index.js';
import type { OccurrencePlan } from './occurrence-planner.js';

/** Who claimed an occurrence and when, kept on its records. */
export interface ClaimFacts {
  /** The replica (`host:pid`). */
  replica?: string;
  /** Redis time of the claim (ms). */
  claimedAt?: number;
  /** The claim took over one that lapsed. */
  reclaimed?: boolean;
}

/**
 * The completion of one planned claim: the `enqueued` record (when it enqueued), the missed
 * occurrences' records (the newest `historyLimit`; the rest only counted), the pre-record of a
 * coalesced catch-up, what backpressure coalesced (in the record of the run that stands for it), and
 * the next due time.
 */
export function completionOf(
  claim: Claim,
  def: ScheduleDefinition,
  plan: OccurrencePlan,
  historyLimit: number,
  by?: ClaimFacts,
  /** Redis time when its enqueue started (the record's `enqueuedAt`; the completion's time without it). */
  enqueuedAt?: number,
  /** How long the fire-rate cap delayed it (ms). */
  capDelayMs?: number,
): Completion {
  // who claimed it and when (for `schedule:why`): a few bytes in records written anyway, no round trip
  // (plain assignments, not conditional spreads: this runs for every claimed occurrence, and a spread of
  // `false` costs a runtime call)
  const facts: ClaimFacts = {};
  if (by) {
    if (by.replica !== undefined) facts.replica = by.replica;
    if (by.claimedAt !== undefined) facts.claimedAt = by.claimedAt;
    if (by.reclaimed || claim.reclaimed) facts.reclaimed = true;
  }
  const missed = plan.missed.slice(-historyLimit);
  const records: Completion['records'] = missed.map((m) => ({
    fireAt: m.fireAt,
    field: occurrenceField(m.fireAt),
    patch: {
      scheduleId: def.id,
      fireAt: m.fireAt,
      kind: 'scheduled',
      outcome: 'missed',
      reason: m.reason,
      ...facts,
    },
    counter: 'missed',
  }));
  // a behind span's facts when they go into the `enqueued` record (the occurrence enqueued stands for it)
  let spanOfEnqueued: Partial<RunRecord> | undefined;
  if (plan.coalesced) {
    // what backpressure coalesced is one record, the stand-in's (all are counted): a behind span as the
    // offsets before it (`coalescedBefore`; it runs in this claim, so they are written with its `enqueued`
    // record, one write), an occurrence coalesced while the waiting job stands for it as a field of that
    // job's record (`coalescedAfter`, while the span is within the kept history). The read model shows
    // each occurrence of them (record-reads.ts, `withSpans`)
    const { cause, standIn, span, fireAts } = plan.coalesced;
    const kept = fireAts.slice(-historyLimit);
    const spanFacts: Partial<RunRecord> = { standsFor: { ...span, cause } };
    if (cause === 'scheduler-behind') spanFacts.coalescedBefore = kept.map((at) => standIn - at);
    else if (span.count <= historyLimit) spanFacts.coalescedAfter = kept.map((at) => at - standIn);
    if (cause === 'scheduler-behind' && plan.enqueue?.fireAt === standIn) spanOfEnqueued = spanFacts;
    else
      records.push({
        fireAt: standIn,
        field: occurrenceField(standIn),
        patch: { scheduleId: def.id, fireAt: standIn, ...spanFacts },
      });
  }
  if (plan.coalesceInto) {
    const c = plan.coalesceInto;
    records.push({
      fireAt: c.fireAt,
      field: occurrenceField(c.fireAt),
      patch: { scheduleId: def.id, fireAt: c.fireAt, kind: 'catch-up', coalesced: c.count, ...facts },
    });
  }
  const completion: Completion = {
    claim,
    next: plan.next,
    records,
    missedUncounted: plan.missed.length - missed.length,
  };
  if (plan.enqueue) {
    const enqueued: NonNullable<Completion['enqueued']> = {
      kind: plan.enqueue.kind,
      queue: def.queue,
      jobId: occurrenceJobId(def.id, plan.enqueue.fireAt),
    };
    if (plan.enqueue.fireAt !== claim.fireAt) enqueued.fireAt = plan.enqueue.fireAt;
    if (enqueuedAt !== undefined) enqueued.enqueuedAt = enqueuedAt;
    if (capDelayMs !== undefined && capDelayMs > 0) enqueued.capDelayMs = capDelayMs;
    if (facts.replica !== undefined) enqueued.replica = facts.replica;
    if (facts.claimedAt !== undefined) enqueued.claimedAt = facts.claimedAt;
    if (facts.reclaimed) enqueued.reclaimed = true;
    if (spanOfEnqueued) enqueued.also = spanOfEnqueued;
    completion.enqueued = enqueued;
  }
  if (plan.coalesced) completion.coalesced = plan.coalesced.count;
  return completion;
}

/** Emit what one completed claim did: `fired` (and `late` past the threshold), `missed` by reason. */
export function announce(
  events: EventEmitter<SchedulerEvents>,
  logger: Logger,
  lateThresholdMs: number,
  def: ScheduleDefinition,
  plan: OccurrencePlan,
  lateMs: number,
): void {
  if (plan.enqueue) {
    const fireAt = plan.enqueue.fireAt;
    events.emit('fired', {
      scheduleId: def.id,
      name: def.name,
      queue: def.queue,
      fireAt,
      kind: plan.enqueue.kind,
      jobId: occurrenceJobId(def.id, fireAt),
      lateMs,
    });
    if (lateMs > lateThresholdMs) {
      events.emit('late', { scheduleId: def.id, name: def.name, fireAt, lateMs });
    }
  }
  if (plan.coalesced) {
    events.emit('missed', {
      scheduleId: def.id,
      name: def.name,
      reason: 'coalesced',
      count: plan.coalesced.count,
      fireAts: plan.coalesced.fireAts,
    });
  }
  if (plan.missed.length === 0) return;
  const byReason = new Map<string, number[]>();
  for (const m of plan.missed) {
    let l = byReason.get(m.reason);
    if (!l) byReason.set(m.reason, (l = []));
    l.push(m.fireAt);
  }
  for (const [reason, fireAts] of byReason) {
    events.emit('missed', {
      scheduleId: def.id,
      name: def.name,
      reason: reason as 'misfire',
      count: fireAts.length,
      fireAts: fireAts.slice(-100),
    });
  }
  logger.debug({ scheduleId: def.id, missed: plan.missed.length }, 'bullbeat: occurrences missed');
}
