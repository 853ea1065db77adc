import { ScheduleOptionsError } from '../../errors/index.js';
import { type GatheredTuning, gatherTuning } from '../../queue/index.js';

/**
 * The fire loop's tuning: how it claims, sleeps, holds back and commits. Every field has a default
 * that serves a deployment from one schedule to a million; change one after measuring (docs/tuning.md).
 */
export interface ManagerTuning {
  /**
   * How many due schedules one claim takes (up to 4 claims run at once when batches come full); at
   * most 4000.
   * @defaultValue `500`
   */
  claimBatch?: number;
  /**
   * Lease of a claim (ms). The replica holding a claim extends it every quarter lease while it works
   * on it (its occurrences wait for their fire time or are being enqueued); a replica that dies holding
   * claims loses them to the others within one lease, so its occurrences run at most about a lease
   * late, once, and are never coalesced away.
   * @defaultValue `1000`
   */
  claimLeaseMs?: number;
  /**
   * How far ahead of their fire time occurrences are claimed (ms). A claimed occurrence waits in this
   * process and is enqueued when Redis's clock reaches its fire time, so the claim's round trip is
   * off the critical path and one claim covers many fire times. Pauses and removals reach the held
   * occurrences (they are dropped); an update made less than this before an occurrence does not
   * change that one. `0` claims only what is due. At most a quarter of `claimLeaseMs`. A replica
   * reaches further by what its recent claims took to plan (a burst, a loaded box), within 1.25 s (or a
   * quarter of `claimLeaseMs` if longer).
   * @defaultValue `50` (or `claimLeaseMs / 4` if lower)
   */
  claimAheadMs?: number;
  /**
   * The fire loop never sleeps longer than this without asking Redis (ms).
   * @defaultValue `30000`
   */
  maxSleepMs?: number;
  /**
   * Backpressure per schedule: an occurrence that comes due while the schedule's previous one is
   * still waiting in its queue (enqueued, not started by any consumer) is not enqueued but counted as
   * `coalesced`, so a slow or stopped consumer leaves at most one waiting job per schedule. Likewise an
   * occurrence claimed after its schedule's next one came due already (the scheduler ran behind) is
   * coalesced, with those due since, into the latest one. A schedule with `misfire: 'all'` and
   * `overlap: 'bufferAll'` or `'allowAll'` always enqueues. `false` enqueues every occurrence.
   * @defaultValue `true`
   */
  backpressure?: boolean;
  /**
   * Commit occurrences to BullMQ ahead of their instant: one claimed before its fire time is added at
   * once as a delayed job due exactly then (as BullMQ's job schedulers do), so the fire instant costs
   * BullMQ's promotion rather than an `addBulk`, and a replica that dies holds nothing due. A pause,
   * removal or update removes a staged job BullMQ has not promoted yet. `false` holds each occurrence
   * in the replica and adds it at its fire time (see docs/commit-ahead.md).
   * @defaultValue `true`
   */
  commitAhead?: boolean;
  /**
   * Replica acknowledgement of each enqueue (Redis `WAIT`): after the job adds of an enqueue, wait
   * until `replicas` replicas of the master that took them acknowledged them (at most `timeoutMs`)
   * before the occurrence's completion is written, so that a master SIGKILLed right after the add
   * cannot lose a job whose occurrence is already recorded as enqueued (it is claimed and added again).
   * An enqueue acknowledged by fewer replicas in time still completes and is counted
   * (`loopStats.underAcked`, `bullbeat_replica_acks_short_total`). It does not make Redis strongly
   * consistent (see the README, *What is guaranteed*). `false`: no `WAIT`.
   * @defaultValue `BULLBEAT_REPLICA_ACKS` (`replicas[:timeoutMs]`, e.g. `1:100`), else `false`
   */
  replicaAcks?: false | { replicas?: number; timeoutMs?: number };
}

/** The manager's tuning knobs, in the order docs/tuning.md gives them. */
export const MANAGER_TUNING_KEYS = [
  'claimBatch',
  'claimLeaseMs',
  'claimAheadMs',
  'maxSleepMs',
  'backpressure',
  'commitAhead',
  'replicaAcks',
] as const satisfies readonly (keyof ManagerTuning)[];

/** `gatherTuning` for a manager: refusals are `ScheduleOptionsError`s naming the field. */
export function managerTuning(options: object): GatheredTuning<ManagerTuning> {
  return gatherTuning<ManagerTuning>(options, MANAGER_TUNING_KEYS, (field, reason) => {
    throw new ScheduleOptionsError(undefined, field, reason);
  });
}
