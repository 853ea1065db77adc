/**
 * The attribute names on bullbeat's spans: OpenTelemetry's messaging semantic conventions where one
 * fits (the queue is the destination, the BullMQ job is the message), `bullbeat.*` for the rest.
 */
export const ATTR = {
  /** `bullmq`: the messaging system carrying the occurrence. */
  system: 'messaging.system',
  /** `create` (the scheduler makes the job of an occurrence) or `process` (a worker runs it). */
  operationType: 'messaging.operation.type',
  /** The BullMQ call: `addBulk` on the scheduler side, `process` on the worker side. */
  operationName: 'messaging.operation.name',
  /** The queue. */
  destination: 'messaging.destination.name',
  /** The BullMQ job id (one per occurrence). */
  messageId: 'messaging.message.id',
  /** The replica (producer side) or worker (consumer side), `host:pid`. */
  clientId: 'messaging.client.id',
  scheduleId: 'bullbeat.schedule.id',
  scheduleName: 'bullbeat.schedule.name',
  /** The occurrence's intended fire time (epoch ms). */
  fireAt: 'bullbeat.fire_at',
  /** Enqueue lateness on the scheduler's span, start lateness on the worker's (ms after `fire_at`). */
  latenessMs: 'bullbeat.lateness_ms',
  /** `scheduled`, `catch-up`, `manual` or `backfill`. */
  kind: 'bullbeat.kind',
  /** 1 on the first attempt, 2 on the first retry, ... (BullMQ's attempts). */
  attempt: 'bullbeat.attempt',
  /** The scheduler replica that claimed and enqueued the occurrence (`host:pid`). */
  replica: 'bullbeat.replica',
  /** The worker process that ran it (`host:pid`). */
  worker: 'bullbeat.worker',
  /** The Redis time of the claim (ms), and whether it took over a claim that lapsed. */
  claimedAt: 'bullbeat.claimed_at',
  reclaimed: 'bullbeat.reclaimed',
  /** What became of the occurrence: `enqueued`, `missed`, `skipped`, `succeeded`, `failed`, ... */
  outcome: 'bullbeat.outcome',
  /** Why it did not run: `misfire`, `paused`, `coalesced`, `overlap`, `exclusion-group`, ... */
  reason: 'bullbeat.reason',
  /** A coalesced occurrence: what coalesced it, and the fire time of the run that stands for it. */
  coalescedBy: 'bullbeat.coalesced.cause',
  standIn: 'bullbeat.coalesced.stand_in',
  /** A run standing for several occurrences (`misfire: 'once'`): how many. */
  coalescedCount: 'bullbeat.coalesced.count',
  /** The run's deadline (`timeoutMs`). */
  timeoutMs: 'bullbeat.timeout_ms',
} as const;

/** BullMQ, as `messaging.system` names it. */
export const SYSTEM = 'bullmq';
