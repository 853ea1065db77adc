import type { GroupRule } from './group-options.js';
import {
  DEFAULT_SLOT_RULE,
  earlierSlotRule,
  isSlotRule,
  type OverlapPolicy,
  type SlotRule,
} from './overlap-policy.js';

// A schedule's run options as its occurrence's job carries them, and their defaults: read by the
// definition's schema and by the worker runtime (a leaf, so that the schema and the job payload do
// not import each other).

/** A schedule's run options, as its definition stores them and each of its jobs carries them. */
export interface OccurrenceRunOptions {
  /** How many runs `overlap: 'skip'` lets go on at once across every worker (`0`: `allowAll`). Default: 1. */
  maxInstances: number;
  /** What a run does when another run of the schedule is still going (Temporal's set). Default: `'skip'`. */
  overlap: OverlapPolicy;
  /**
   * The rule the run slot is asked for under, resolved from `overlap` and `maxInstances` once, when
   * the schedule is defined (`resolveOverlap`); the worker runtime reads it as it is.
   */
  slot: SlotRule;
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
 * Run options as a job or a definition of an earlier release carried them: `maxInstances`, `coalesce`
 * and maybe `overlap`, and no `slot` (each worker derived it). Read once by `resolveRunOptions`.
 */
export type EarlierRunOptions = Partial<Omit<OccurrenceRunOptions, 'slot'>> & {
  coalesce?: boolean;
  slot?: unknown;
};

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
 * worker applies them to a job that carries no `run` (a foreign producer's).
 */
export const DEFAULT_RUN_OPTIONS: Readonly<Pick<OccurrenceRunOptions, 'maxInstances' | 'overlap' | 'slot'>> =
  Object.freeze({ maxInstances: 1, overlap: 'skip', slot: DEFAULT_SLOT_RULE });

/** Run options as the worker runtime and `why` read them: every field of the rule there. */
export type ResolvedRunOptions = OccurrenceRunOptions;

/**
 * A job's or a stored definition's `run`, read once: one of this release carries its rule (`slot`)
 * and is taken as it is; one without (an earlier release's job or row, a foreign producer's job with
 * no `run`) gets the rule its fields stood for then (`earlierSlotRule`), derived here and nowhere else.
 */
export function resolveRunOptions(run: EarlierRunOptions | undefined): ResolvedRunOptions {
  if (run === undefined) return { ...DEFAULT_RUN_OPTIONS, slot: { ...DEFAULT_SLOT_RULE } };
  const { coalesce, slot, ...rest } = run;
  if (isSlotRule(slot) && rest.overlap !== undefined) {
    return { maxInstances: DEFAULT_RUN_OPTIONS.maxInstances, ...rest, overlap: rest.overlap, slot };
  }
  return { ...rest, ...earlierSlotRule({ ...rest, coalesce }) };
}
