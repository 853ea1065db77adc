import type { GroupRule } from './group-options.js';
import { type OverlapPolicy, type SlotRule, slotRule } from './overlap-policy.js';

// A schedule's run options as its occurrence's job carries them, and their defaults: read by the
// definition's schema and by the worker runtime (a leaf, so that the schema and the job payload do
// not import each other).

export interface OccurrenceRunOptions {
  /** Concurrent runs allowed across every worker; 0 = unlimited. Default: 1. */
  maxInstances: number;
  /** Skip the occurrence when any run of the schedule is still going. Default: true. */
  coalesce: boolean;
  /**
   * What a run does when another run of the schedule is still going (Temporal's set). When absent,
   * `maxInstances` and `coalesce` decide (see `slotRule`).
   */
  overlap?: OverlapPolicy;
  /** Final failures in a row after which the schedule pauses itself (absent: never). */
  pauseOnFailure?: number;
  /** Runs of schedules in one group never overlap anywhere in the cluster. */
  exclusionGroup?: string;
  /** How long a run waits for its busy exclusion group before it is recorded as skipped (ms). */
  exclusionWaitMs?: number;
  /** The handler's deadline (ms): its signal aborts and the run fails with a timeout error. */
  timeoutMs?: number;
  /** At most `max` runs at once across every schedule of the group `key` (see `GroupRule`). */
  group?: GroupRule;
}

/**
 * What the data of an occurrence's job is. `wrapped`: an `OccurrenceJobData`, the schedule's `data`
 * inside it (bullbeat's own workers read the rest). `plain`: the schedule's `data` alone (`{}` when it
 * has none), so that a BullMQ `Worker` written for that data runs it unchanged; the occurrence is then
 * named by the job id (`occurrenceJobId`) and bullbeat's worker reads the rest from the schedule.
 */
export const JOB_PAYLOADS = ['wrapped', 'plain'] as const;
export type JobPayload = (typeof JOB_PAYLOADS)[number];

/**
 * The overlap defaults, in one place: the scheduler resolves a schedule's options with them, and the
 * worker applies them to a job that carries no `run` (a foreign producer's, or an older payload).
 */
export const DEFAULT_RUN_OPTIONS: Readonly<Pick<OccurrenceRunOptions, 'maxInstances' | 'coalesce'>> =
  Object.freeze({ maxInstances: 1, coalesce: true });

/**
 * Run options as the worker runtime and `why` read them: the defaults filled in, and the overlap
 * policy resolved once into the rule a run slot is asked for.
 */
export interface ResolvedRunOptions extends OccurrenceRunOptions {
  /** What `overlap`, `maxInstances` and `coalesce` come to together (see `slotRule`). */
  readonly slot: SlotRule;
}

/**
 * A job's or a stored definition's `run` (possibly missing or partial) with the defaults filled in and
 * its overlap rule resolved: where the run options are read, once per occurrence.
 */
export function resolveRunOptions(run: Partial<OccurrenceRunOptions> | undefined): ResolvedRunOptions {
  const full = { ...DEFAULT_RUN_OPTIONS, ...run };
  return { ...full, slot: slotRule(full) };
}
