import { createHash } from 'node:crypto';
import { partitionOf, partitionTag } from './partitions.js';

/** The first-entry hashes of the audit trails per partition (`auditFirst`; includes/audit.lua's `AUDIT_BUCKETS`). */
export const AUDIT_BUCKETS = 64;

/** Which of a partition's first-entry hashes holds a schedule's: SHA-1 of its id, first 8 hex digits, modulo 64. */
export function auditBucket(scheduleId: string): number {
  return (
    Number.parseInt(createHash('sha1').update(scheduleId, 'utf8').digest('hex').slice(0, 8), 16) %
    AUDIT_BUCKETS
  );
}

/**
 * Redis key layout. With one partition (a single Redis, and today's data) every bullbeat key of one
 * deployment shares one hash tag (`{prefix}`), so that every Lua script stays single-slot. With P
 * partitions (a Redis Cluster, see partitions.ts) each schedule's keys live under its partition's tag,
 * and the deployment-wide keys (wake, fleet, groups) under `{prefix}`: every script still touches one
 * slot. BullMQ's own queue keys are BullMQ's.
 */
export function hashTag(prefix: string): string {
  return prefix.includes('{') ? prefix : `{${prefix}}`;
}

export interface Keys {
  /** The start of this partition's keys: `{prefix}:bb` with one partition. */
  base: string;
  /** How many partitions the deployment has (1: every key under `{prefix}`). */
  partitions: number;
  /** This partition's index; -1 for the keys of a whole deployment of more than one partition. */
  index: number;
  /** The keys of partition `i` (itself with one partition). */
  partition(i: number): Keys;
  /** The partition of a schedule: a stable hash of its id (0 with one partition). */
  partitionOf(scheduleId: string): number;
  /** The keys of a schedule's partition. */
  of(scheduleId: string): Keys;
  /** Every partition's keys, in order. */
  all(): Keys[];
  /** Hash: schedule id → its definition (JSON). Written by the scheduler. */
  schedules: string;
  /** Sorted set: schedule id scored by its next due time (ms); only active schedules are in it. */
  due: string;
  /** Hash of run counters for one schedule (`runs`, `errors`, `skipped`, `missed`). */
  counts(scheduleId: string): string;
  /** Hash of counters summed over every schedule (same fields as `counts`). */
  totals: string;
  /**
   * Hash: occurrence field (see `occurrenceField`) → run record JSON, as earlier releases wrote it
   * (read, trimmed and deleted; never written now: see `record`).
   */
  runs(scheduleId: string): string;
  /** Hash: one occurrence's run record, one field per fact (`record-form.ts`); bounded by `runIndex`. */
  record(scheduleId: string, field: string): string;
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
  /** Hash: calendar name → its current version's record (JSON, `calendar-record.ts`). Deployment-wide. */
  calendars: string;
  /** Hash: calendar name → its current version number: what a replica checks before it plans. */
  calendarVersions: string;
  /** Stream: a calendar's changes, each with its definition before and after (its audit trail). */
  calendarAudit(name: string): string;
  /** Pub/sub channel: a lease id asked to stop (overlap cancelOther); its holder aborts the run's signal. */
  cancel: string;
  /** Hash: second (epoch s) -> occurrences given that second by the fire-rate cap (`maxFiresPerSecond`). */
  fireBudget: string;
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
   * Sorted set: fire time → fire time of each occurrence a backfill or a resume's catch-up took to run
   * (the ledger), so that none of them runs one twice, however long ago; expires
   * `BACKFILL_LEDGER_TTL_MS` after its last write (or the paused spans'), and goes with the schedule.
   */
  backfills(scheduleId: string): string;
  /**
   * Hash: what the runs of a schedule's overridden backfills carry (`backfill-override.ts`), kept while
   * any of their occurrences is owed: `<fireAt>` → the backfill's override id, `=<override id>` → the
   * override (JSON), `#<override id>` → how many owed occurrences still name it (the override goes with
   * the last). Written when a backfill takes (`backfill-take-11`), struck with the owed members
   * (`owed-done-5`, `owed-release-3`); read by whoever enqueues them, a replica's sweep included. Expires
   * with the ledger (`backfills`), and goes with the schedule.
   */
  backfillOverrides(scheduleId: string): string;
  /**
   * Sorted set: the spans of a schedule's trigger that its fire loop passed over while it was paused,
   * `from:to` (`[from, to)`, ms) scored by `to`, written by each resume: a backfill may run an
   * occurrence there that nothing else ran. Expires with the schedule's ledger (`backfills`).
   */
  pausedSpans(scheduleId: string): string;
  /**
   * Hash: the start marks of a schedule's occurrences that more than one enqueuer may add (a
   * backfill's and a catch-up's, owed and perhaps swept; one whose claim was taken over): occurrence
   * field → the stamp (BullMQ `timestamp`) of the add of its job that started or skipped it, '' while
   * none did, '-' when one did before the take-over. A delivery of another add is refused at its start
   * (start-runs-1), however much of the history and of BullMQ's jobs was trimmed. Expires with the
   * ledger (`backfills`), and goes with the schedule.
   */
  taken(scheduleId: string): string;
  /**
   * String: a schedule imported from one of BullMQ's job schedulers, JSON (see `bullmq-handover.ts`):
   * which one, and up to which instant BullMQ's runs stand for its occurrences. Written by
   * `import:bullmq`; read by `schedule:why`.
   */
  bullmqHandover(scheduleId: string): string;
  /**
   * Stream: a schedule's audit trail, one entry per change (`op`, `actor`, `source` and the change's own
   * fields, see audit-entry.ts), its id Redis's clock; the newest `auditLimit` kept (XADD MAXLEN),
   * written by the script that makes the change, and kept `auditRetentionMs` after a remove. A trail
   * of one `create` entry is kept in `auditFirst` instead (includes/audit.lua): no stream until the second.
   */
  audit(scheduleId: string): string;
  /**
   * Hash: schedule id → its trail's first entry while it is the only one (a `create`:
   * `<ms, base 36>|<source letter><actor>`, its definition the one stored), one of 64 per partition,
   * by the schedule's id (`auditBucket`), each small enough for Redis's listpack encoding.
   */
  auditFirst(scheduleId: string): string;
  /**
   * Sorted set: occurrences taken (put in a schedule's ledger) by a resume's catch-up or a backfill
   * and not yet enqueued, `<fireAt>|<lane b or c>|<overlap>|<coalesced>|<id>`, scored by the Redis
   * time by which their taker should have enqueued them; past it, any scheduler replica does.
   */
  owedRuns: string;
  /** String: the deployment's partition count, written by the first manager that starts (see `partitions`). */
  partitionCount: string;
  /**
   * String: the deployment's data format version (`DATA_FORMAT`, data-format.ts), written by the first
   * process that starts on an empty deployment and moved on by an upgrade; none on a deployment with data
   * means format 1.
   */
  dataFormat: string;
  /**
   * Hash: queue → the Redis time (ms) until which a bullbeat worker runtime consumes it, announced by
   * each runtime while it runs (see `runtime-queues.ts`): the outcome follower leaves such a queue
   * alone, its runs' records being written by the runtime itself.
   */
  runtimeQueues: string;
  /**
   * Set: the ids of this partition's schedules labelled `key=value` (the label index, `labels.ts`),
   * written by the scripts that write and remove definitions (`upsert-9`, `remove-13`, includes/labels).
   */
  labelSet(key: string, value: string): string;
  /** Set: the values of label `key` that some schedule of this partition carries (its `labelSet`s). */
  labelValues(key: string): string;
  /**
   * Set: the group keys (`group.key`) that some schedule of this partition names (the group index,
   * includes/groups), written with the definitions by `upsert-9` and `remove-13`.
   */
  groupKeys: string;
  /** Sorted set: the ids of this partition's schedules naming group `key`, each scored by its `max`. */
  groupMembers(key: string): string;
  /** String: set once this partition's group index holds every definition written before the index existed. */
  groupsIndexed: string;
  /**
   * Set: the ids of this partition's schedules whose definition has `expect` (the expectations index,
   * includes/expects), written with the definitions by `upsert-9` and `remove-13`: what the expectations
   * watch reads instead of every definition and every state row.
   */
  expectIndex: string;
  /** String: set once this partition's expectations index holds every definition written before it existed. */
  expectsIndexed: string;
  /**
   * Sorted set, every score 0: `<name>\0<id>` of each of this partition's schedules, as data format 2
   * kept it beside the queue indexes. Neither written nor read since format 3 (the list of every schedule
   * merges the queue indexes): the upgrade to format 3 deletes it, and so does a list read that finds it
   * rebuilt by a process of format 2 (`checkListIndexes`).
   */
  names: string;
  /**
   * Sorted set, every score 0: `<name>\0<id>` of each of this partition's schedules targeting `queue` (a
   * list index, includes/names), written with the definitions by `upsert-9` and `remove-13`: each schedule
   * is in one. The list filtered by queue pages it with `ZRANGE ... BYLEX`; the list by name merges the
   * partition's (`list-walk.ts`).
   */
  queueNames(queue: string): string;
  /** Set: the queues some schedule of this partition targets (each with its `queueNames`). */
  queues: string;
  /**
   * Sorted set, every score 0: `<name>\0<id>` of each of this partition's schedules shown `status`
   * (`paused`: state p or o, `completed`, `errored`; an active one is in none), kept by every script that
   * moves a state row between statuses (includes/state `setStatus`): the list filtered by status pages it.
   */
  statusNames(status: 'paused' | 'completed' | 'errored'): string;
  /** String: set once this partition's queue and status indexes hold every schedule written before them. */
  listsIndexed: string;
  /** Stream: the deployment's bulk changes (by selector, `scheduleMany`), one entry each with its count. */
  bulkAudit: string;
}

/**
 * The keys of a deployment. `partitions` (1 by default) must be the same for every process of it: a
 * schedule's keys are found by hashing its id over that count. With 1, the key names are exactly
 * those of earlier releases.
 */
export function keys(prefix: string, partitions = 1): Keys {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
    throw new RangeError(`keys: partitions must be an integer from 1 to 1024, got ${partitions}`);
  }
  const globalBase = `${hashTag(prefix)}:bb`;
  if (partitions === 1) {
    const k = partitionKeys(globalBase, globalBase, 1, 0, () => k);
    return k;
  }
  const parts: Keys[] = [];
  const whole = partitionKeys(
    globalBase,
    globalBase,
    partitions,
    -1,
    (id) => parts[partitionOf(id, partitions)]!,
  );
  for (let i = 0; i < partitions; i++) {
    parts.push(
      partitionKeys(
        `{${partitionTag(prefix, i, partitions)}}:bb`,
        globalBase,
        partitions,
        i,
        (id) => parts[partitionOf(id, partitions)]!,
      ),
    );
  }
  for (const k of [whole, ...parts]) {
    k.partition = (i) => {
      const p = parts[i];
      if (!p) throw new RangeError(`keys: no partition ${i} (there are ${partitions})`);
      return p;
    };
    k.all = () => parts;
  }
  // The whole deployment's keys have no `schedules`, `due`...: those are per partition.
  for (const name of PARTITION_FIELDS) {
    Object.defineProperty(whole, name, {
      get() {
        throw new Error(
          `keys.${name}: the deployment has ${partitions} partitions; use keys.of(id) or keys.partition(i)`,
        );
      },
    });
  }
  return whole;
}

const PARTITION_FIELDS = [
  'schedules',
  'due',
  'totals',
  'inflight',
  'claim',
  'state',
  'resched',
  'completed',
  'errors',
  'pauseNotes',
  'owedRuns',
  'groupKeys',
  'groupsIndexed',
  'expectIndex',
  'expectsIndexed',
  'names',
  'queues',
  'listsIndexed',
] as const;

function partitionKeys(
  base: string,
  globalBase: string,
  partitions: number,
  index: number,
  ofId: (id: string) => Keys,
): Keys {
  const k: Keys = {
    base,
    partitions,
    index,
    partition: () => k,
    partitionOf: (id) => (partitions === 1 ? 0 : partitionOf(id, partitions)),
    of: ofId,
    all: () => [k],
    schedules: `${base}:schedules`,
    due: `${base}:due`,
    // a schedule's own keys are always in its partition (its scripts touch them with the partition's)
    counts: (id) => `${ofId(id).base}:counts:${id}`,
    totals: `${base}:totals`,
    runs: (id) => `${ofId(id).base}:runs:${id}`,
    // the occurrence field (digits, `m` or `b` then digits) holds no `:`: no two (id, field) share a key
    record: (id, field) => `${ofId(id).base}:rec:${id}:${field}`,
    runIndex: (id) => `${ofId(id).base}:runidx:${id}`,
    inflight: `${base}:inflight`,
    claim: `${base}:claim`,
    state: `${base}:state`,
    resched: `${base}:resched`,
    completed: `${base}:completed`,
    errors: `${base}:errors`,
    // deployment-wide: one channel, one fleet, exclusion groups across every partition
    wake: `${globalBase}:wake`,
    cancel: `${globalBase}:cancel`,
    fireBudget: `${globalBase}:fire-budget`,
    lease: (id) => `${ofId(id).base}:lease:${id}`,
    leaseOwed: (id) => `${ofId(id).base}:owed:${id}`,
    runWaiters: (id) => `${ofId(id).base}:waiters:${id}`,
    runWaiterBeats: (id) => `${ofId(id).base}:waiters:${id}:beats`,
    cancelled: (id) => `${ofId(id).base}:cancelled:${id}`,
    backfills: (id) => `${ofId(id).base}:backfills:${id}`,
    backfillOverrides: (id) => `${ofId(id).base}:backfill-overrides:${id}`,
    pausedSpans: (id) => `${ofId(id).base}:paused:${id}`,
    taken: (id) => `${ofId(id).base}:taken:${id}`,
    bullmqHandover: (id) => `${ofId(id).base}:bullmq-handover:${id}`,
    audit: (id) => `${ofId(id).base}:audit:${id}`,
    auditFirst: (id) => `${ofId(id).base}:audit-first:${auditBucket(id)}`,
    owedRuns: `${base}:owed-runs`,
    pauseNotes: `${base}:notes`,
    group: (name) => `${globalBase}:group:${name}`,
    groupQueue: (name) => `${globalBase}:group:${name}:queue`,
    groupWaiters: (name) => `${globalBase}:group:${name}:waiters`,
    groupTicket: (name) => `${globalBase}:group:${name}:ticket`,
    fleet: `${globalBase}:fleet`,
    fleetBeats: `${globalBase}:fleet:beats`,
    partitionCount: `${globalBase}:partitions`,
    dataFormat: `${globalBase}:format`,
    runtimeQueues: `${globalBase}:runtime-queues`,
    // label keys and values hold no `=` or `:` (labels.ts): no two (key, value) pairs share a set
    labelSet: (key, value) => `${base}:label:${key}=${value}`,
    labelValues: (key) => `${base}:labelvals:${key}`,
    // the group index: `groupmem:` followed by the whole group key, so no two keys share a set
    groupKeys: `${base}:groupkeys`,
    groupMembers: (key) => `${base}:groupmem:${key}`,
    groupsIndexed: `${base}:groupidx`,
    expectIndex: `${base}:expecting`,
    expectsIndexed: `${base}:expectidx`,
    names: `${base}:names`,
    // `qnames:` and `snames:` then the whole queue or status word: no two share a set
    queueNames: (queue) => `${base}:qnames:${queue}`,
    queues: `${base}:queues`,
    statusNames: (status) => `${base}:snames:${status}`,
    listsIndexed: `${base}:listidx`,
    bulkAudit: `${globalBase}:bulk-audit`,
    calendars: `${globalBase}:calendars`,
    calendarVersions: `${globalBase}:calendars:v`,
    calendarAudit: (name) => `${globalBase}:calendars:audit:${name}`,
  };
  return k;
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
