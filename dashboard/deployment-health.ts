import type { Redis } from 'ioredis';
import { type Keys, lateSchedules, namePage, redisTime, type ScheduleIndex } from '../src/store/index.js';
import type { ScheduleReader } from './schedule-reader.js';

/** Ids named per list in a health report (the counts are exact). */
const SAMPLE = 20;
/** Schedules read per pipeline when looking for failing ones. */
const CHUNK = 200;

/** The stale-schedule picture of a deployment at one instant. */
export interface DeploymentHealth {
  /** Redis time (ms) of the reading. */
  now: number;
  /**
   * Active schedules due more than `lateThresholdMs` ago and not enqueued: still waiting in `due`
   * (no replica claimed them), or claimed by a replica whose lease lapsed before it enqueued them.
   */
  late: number;
  /**
   * Active schedules with the dashboard's `failing` or `no worker` badge: no success for several expected
   * intervals (no worker ran them, or their last few finished occurrences all failed or were missed).
   */
  failing: number;
  /** Schedules in the errored status. */
  errored: number;
  /** Up to 20 ids of each. */
  lateIds: string[];
  failingIds: string[];
  erroredIds: string[];
}

/**
 * Reads `DeploymentHealth` from Redis (the gauges `bullbeat_schedules_late`, `_failing`, `_errored`,
 * the fleet page and `bullbeat status`). Failing needs each active schedule's recent records: one
 * pipelined read per 200 schedules, so callers cache it (`cacheMs`).
 */
/** The health is cached at least this many times as long as its computation took (see `read`). */
const SLOW_FACTOR = 5;

export class DeploymentHealthReader {
  private cached: { at: number; value: Promise<DeploymentHealth> } | undefined;
  /** How long the last computation took (ms): the cache lasts at least `SLOW_FACTOR` times that. */
  private lastTookMs = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly index: ScheduleIndex,
    private readonly reader: ScheduleReader,
    private readonly options: { lateThresholdMs: number; cacheMs: number },
  ) {}

  /**
   * The health, at most `cacheMs` old, or `SLOW_FACTOR` times its last computation's duration when
   * that is longer: at 100,000 schedules the failing check takes seconds, and a gauge scraped every
   * few seconds would keep one running all the time.
   */
  read(): Promise<DeploymentHealth> {
    const t = Date.now();
    const lasts = Math.max(this.options.cacheMs, SLOW_FACTOR * this.lastTookMs);
    if (this.cached && t - this.cached.at < lasts) return this.cached.value;
    const value = this.compute();
    this.cached = { at: t, value };
    value.then(
      () => {
        this.lastTookMs = Date.now() - t;
      },
      () => {
        if (this.cached?.value === value) this.cached = undefined;
      },
    );
    return value;
  }

  private async compute(): Promise<DeploymentHealth> {
    const now = await redisTime(this.redis);
    const before = now - this.options.lateThresholdMs;
    const late = await lateSchedules(this.redis, this.keys, before, now);
    // errored: the status index (its count, a page of ids); failing: every active schedule's view, the
    // schedules walked by name CHUNK at a time (never the whole list in memory)
    const [counts, errored] = await Promise.all([
      this.index.statusCounts(),
      this.index.page({ status: 'errored', offset: 0, limit: SAMPLE }),
    ]);
    const failingIds: string[] = [];
    for (let cursor: string | undefined = '0'; cursor !== undefined; ) {
      const step: Awaited<ReturnType<typeof namePage>> = await namePage(this.redis, this.keys, cursor, CHUNK);
      for (const view of await this.reader.many(step.ids)) {
        if (
          view.status === 'active' &&
          (view.badges.includes('failing') || view.badges.includes('no-worker'))
        ) {
          failingIds.push(view.id); // the alert: no success for several expected intervals, whatever the cause
        }
      }
      cursor = step.cursor;
    }
    const erroredIds = errored.ids;
    const lateIds = [...late];
    return {
      now,
      late: lateIds.length,
      failing: failingIds.length,
      errored: counts.errored,
      lateIds: lateIds.slice(0, SAMPLE),
      failingIds: failingIds.slice(0, SAMPLE),
      erroredIds: erroredIds.slice(0, SAMPLE),
    };
  }
}
