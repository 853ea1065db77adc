/**
 * Redis key layout. Every bullbeat key of one deployment shares one hash tag (`{prefix}`), so that
 * every Lua script stays single-slot and Redis Cluster works. BullMQ's own queue keys are BullMQ's.
 */
export function hashTag(prefix: string): string {
  return prefix.includes('{') ? prefix : `{${prefix}}`;
}

export interface Keys {
  /** The common start of every key: `{prefix}:bb`. */
  base: string;
  /** Hash: schedule id → its definition (JSON). Written by the scheduler. */
  schedules: string;
  /** Sorted set: schedule id scored by its next due time (ms); only active schedules are in it. */
  due: string;
  /** Hash of run counters for one schedule (`runs`, `errors`, `skipped`, `missed`). */
  counts(scheduleId: string): string;
  /** Hash of counters summed over every schedule (same fields as `counts`). */
  totals: string;
  /** Hash: occurrence field (see `occurrenceField`) → run record (JSON), bounded. */
  runs(scheduleId: string): string;
  /** Sorted set: occurrence field scored by fire time; orders and bounds `runs`. */
  runIndex(scheduleId: string): string;
  /** Sorted set: schedule id scored by the expiry of its claim's lease (claimed, being enqueued). */
  inflight: string;
  /** Hash: schedule id → `fireAt|token` of its current claim. */
  claim: string;
  /** Hash: schedule id → `status|fired|lastFire|createdAt|fingerprint|source` (see includes/state.lua, schedule-state.ts). */
  state: string;
  /** Hash: schedule id → next due time decided while it was claimed (an upsert or resume), applied on completion. */
  resched: string;
  /** Sorted set: completed schedule id scored by completion time (pruned after the retention). */
  completed: string;
  /** Hash: errored schedule id → why it cannot be planned or enqueued (JSON `{ reason, at, fireAt }`). */
  errors: string;
  /**
   * Pub/sub channel. A due time (ms) as text: a schedule's due time changed, replicas re-arm their
   * timers. `stop:<id>`: the schedule was paused or removed, replicas drop its occurrences claimed
   * ahead and not yet enqueued.
   */
  wake: string;
  /** Sorted set: lease id → expiry (ms, Redis time) of each live run of a schedule (worker overlap). */
  lease(scheduleId: string): string;
  /** Sorted set: job id → expiry of the claim of each retry owed a run slot of a schedule (it waits for one). */
  leaseOwed(scheduleId: string): string;
  /** Sorted set: job id of an occurrence buffered for a schedule's run slot (overlap buffer*, cancelOther) → fire time. */
  runWaiters(scheduleId: string): string;
  /** Sorted set: the same job ids → heartbeat expiry (a waiter whose job stops asking is forgotten). */
  runWaiterBeats(scheduleId: string): string;
  /** Set: lease ids of a schedule's runs asked to stop by a newer occurrence (overlap cancelOther). */
  cancelled(scheduleId: string): string;
  /** Pub/sub channel: a lease id asked to stop (overlap cancelOther); its holder aborts the run's signal. */
  cancel: string;
  /** Sorted set holding the one lease id (scored by expiry) of the run that has an exclusion group. */
  group(name: string): string;
  /** Sorted set: lease ids waiting for an exclusion group, scored by arrival ticket (fair order). */
  groupQueue(name: string): string;
  /** Sorted set: lease ids waiting for an exclusion group, scored by heartbeat expiry. */
  groupWaiters(name: string): string;
  /** Counter handing out an exclusion group's arrival tickets. */
  groupTicket(name: string): string;
  /** Hash: fleet member id (scheduler replica, worker) → its description (JSON), written at join and on every beat. */
  fleet: string;
  /** Sorted set: fleet member id scored by the Redis time (ms) past which it counts as dead. */
  fleetBeats: string;
  /**
   * Hash: paused schedule id → its pause note, JSON `{ "note", "by", "at" }` (see `pause-note.ts`):
   * why, who, when (Redis ms). Written by `pause(id, { note })` and by a pause on failure; removed on
   * resume and on remove.
   */
  pauseNotes: string;
  /**
   * Sorted set: fire time → fire time of each occurrence a backfill enqueued (the backfill ledger),
   * so that no backfill runs one twice, however long ago; expires `BACKFILL_LEDGER_TTL_MS` after the
   * last backfill of the schedule, and goes with the schedule.
   */
  backfills(scheduleId: string): string;
}

export function keys(prefix: string): Keys {
  const base = `${hashTag(prefix)}:bb`;
  return {
    base,
    schedules: `${base}:schedules`,
    due: `${base}:due`,
    counts: (id) => `${base}:counts:${id}`,
    totals: `${base}:totals`,
    runs: (id) => `${base}:runs:${id}`,
    runIndex: (id) => `${base}:runidx:${id}`,
    inflight: `${base}:inflight`,
    claim: `${base}:claim`,
    state: `${base}:state`,
    resched: `${base}:resched`,
    completed: `${base}:completed`,
    errors: `${base}:errors`,
    wake: `${base}:wake`,
    lease: (id) => `${base}:lease:${id}`,
    leaseOwed: (id) => `${base}:owed:${id}`,
    runWaiters: (id) => `${base}:waiters:${id}`,
    runWaiterBeats: (id) => `${base}:waiters:${id}:beats`,
    cancelled: (id) => `${base}:cancelled:${id}`,
    cancel: `${base}:cancel`,
    group: (name) => `${base}:group:${name}`,
    groupQueue: (name) => `${base}:group:${name}:queue`,
    groupWaiters: (name) => `${base}:group:${name}:waiters`,
    groupTicket: (name) => `${base}:group:${name}:ticket`,
    fleet: `${base}:fleet`,
    fleetBeats: `${base}:fleet:beats`,
    pauseNotes: `${base}:notes`,
    backfills: (id) => `${base}:backfills:${id}`,
  };
}

/**
 * Which records an occurrence's record sits among: `false` the scheduled ones (and catch-up runs),
 * `true` manual runs, `'backfill'` backfilled occurrences.
 */
export type RecordLane = boolean | 'backfill';

/** The lane of a run kind (`RunRecord['kind']`). */
export function laneOf(kind: string | undefined): RecordLane {
  return kind === 'backfill' ? 'backfill' : kind === 'manual';
}

/**
 * The field under which one occurrence's record is kept: the fire time for scheduled occurrences,
 * `m<time>` for manual runs (`triggerNow`), `b<time>` for backfilled ones, so that neither ever
 * overwrites a scheduled occurrence's record.
 */
export function occurrenceField(fireAt: number, manual: RecordLane = false): string {
  return manual === 'backfill' ? `b${fireAt}` : manual ? `m${fireAt}` : String(fireAt);
}
