import { ScheduleOptionsError } from '../../errors/index.js';

/**
 * How a scheduler replica records the outcome of occurrences that a consumer other than bullbeat's
 * worker runtime ran (a plain BullMQ `Worker`, another language). See `ForeignOutcomes`.
 */
export interface ForeignOutcomesOptions {
  /** How often a reconciliation pass looks for `enqueued` records whose job finished (ms). Default: `10000`. */
  reconcileIntervalMs?: number;
  /** A pass looks only at `enqueued` records older than this (younger ones are left to events) (ms). Default: `5000`. */
  reconcileMinAgeMs?: number;
  /** Schedules one pass looks at (the next pass goes on from there). Default: `200`. */
  reconcileBatch?: number;
  /** The newest records of each schedule a pass looks at. Default: `20`. */
  reconcileRecent?: number;
  /**
   * How long the reader of a queue's events waits before its next read, after a read that did not fill
   * its batch (ms): a steady trickle of finishing jobs is then read and recorded in batches (one
   * `XREAD` and two round trips per batch, not per event); outcomes are recorded that much later.
   * `0`: read again at once. Default: `100`.
   */
  gatherMs?: number;
  /**
   * The schedules of a queue that bullbeat's worker runtime consumes are not reconciled (the runtime
   * writes their records itself), but for one full scan this often, which finds a plain BullMQ Worker
   * consuming such a queue beside the runtime (ms). Default: `300000`.
   */
  runtimeCheckIntervalMs?: number;
}

export interface ResolvedForeignOutcomesOptions {
  enabled: boolean;
  reconcileIntervalMs: number;
  reconcileMinAgeMs: number;
  reconcileBatch: number;
  reconcileRecent: number;
  gatherMs: number;
  runtimeCheckIntervalMs: number;
}

/** Apply the defaults once: `true` or `undefined` = on with the defaults, `false` = off. */
export function resolveForeignOutcomesOptions(
  o: boolean | ForeignOutcomesOptions | undefined,
): ResolvedForeignOutcomesOptions {
  const given = typeof o === 'object' && o !== null ? o : {};
  const int = (field: keyof ForeignOutcomesOptions, dflt: number, min: number): number => {
    const v = given[field];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new ScheduleOptionsError(
        undefined,
        `foreignOutcomes.${field}`,
        `must be an integer >= ${min}, got ${String(v)}`,
      );
    }
    return v;
  };
  if (o !== undefined && typeof o !== 'boolean' && (typeof o !== 'object' || o === null)) {
    throw new ScheduleOptionsError(undefined, 'foreignOutcomes', 'must be a boolean or an options object');
  }
  return {
    enabled: o !== false,
    reconcileIntervalMs: int('reconcileIntervalMs', 10_000, 100),
    reconcileMinAgeMs: int('reconcileMinAgeMs', 5_000, 0),
    reconcileBatch: int('reconcileBatch', 200, 1),
    reconcileRecent: int('reconcileRecent', 20, 1),
    gatherMs: int('gatherMs', 100, 0),
    runtimeCheckIntervalMs: int('runtimeCheckIntervalMs', 300_000, 0),
  };
}
