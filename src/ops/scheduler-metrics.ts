import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  type ErroredEvent,
  type FailedEvent,
  type FiredEvent,
  type FireLoopStats,
  internalsOf,
  type LateEvent,
  type MissedEvent,
} from '../scheduler/index.js';
import { bounded, LATENESS_BUCKETS, type ProcessMetricsOptions, scheduleLabel } from './metrics-options.js';

/**
 * What the scheduler metrics read from a `SchedulerManager`: its events, and its fire loop's counters
 * (through the manager's internals).
 */
export interface SchedulerMetricsSource {
  on(event: 'fired', listener: (e: FiredEvent) => void): unknown;
  on(event: 'late', listener: (e: LateEvent) => void): unknown;
  on(event: 'missed', listener: (e: MissedEvent) => void): unknown;
  on(event: 'failed', listener: (e: FailedEvent) => void): unknown;
  on(event: 'errored', listener: (e: ErroredEvent) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  readonly running: boolean;
}

/** A manager's fire-loop counters; a stand-in source may carry its own `loopStats`. */
function loopStatsOf(source: SchedulerMetricsSource): FireLoopStats | undefined {
  try {
    return internalsOf(source).loopStats;
  } catch {
    return (source as { loopStats?: FireLoopStats }).loopStats;
  }
}

const KINDS = new Set(['scheduled', 'manual', 'catch-up']);
const MISSED = new Set(['misfire', 'catch-up-window', 'max-catch-up', 'paused', 'coalesced']);

/**
 * A scheduler replica's own metrics, from its manager's events (fires, lateness, misfires, errors)
 * and its fire loop's counters (claims taken over). Labels are bounded: `kind`, `reason`, and a
 * `schedule` label only for the ids opted in.
 */
export class SchedulerMetrics {
  private readonly detach: (() => void)[] = [];

  constructor(registry: Registry, source: SchedulerMetricsSource, options: ProcessMetricsOptions = {}) {
    const registers = [registry];
    const loopStats = () => loopStatsOf(source);
    const opted = options.scheduleLabels?.length ? new Set(options.scheduleLabels) : undefined;
    const withSchedule = (names: string[]) => (opted ? [...names, 'schedule'] : names);
    const fires = new Counter({
      name: 'bullbeat_fires_total',
      help: 'Occurrences this scheduler replica enqueued, by kind (scheduled, manual, catch-up)',
      labelNames: withSchedule(['kind']),
      registers,
    });
    const lateness = new Histogram({
      name: 'bullbeat_fire_lateness_seconds',
      help: 'Enqueue time minus intended fire time (Redis clock), per occurrence this replica enqueued',
      labelNames: withSchedule(['kind']),
      buckets: LATENESS_BUCKETS,
      registers,
    });
    const late = new Counter({
      name: 'bullbeat_late_fires_total',
      help: 'Occurrences this replica enqueued later than lateThresholdMs (within their misfire grace)',
      registers,
    });
    const missed = new Counter({
      name: 'bullbeat_misfires_total',
      help: 'Occurrences recorded as not run by this replica, by reason (misfire: missed or coalesced into one run by the misfire policy; catch-up-window; max-catch-up; paused; coalesced: not enqueued while the previous occurrence still waited in its queue, or coalesced into a later one already due when the scheduler ran behind)',
      labelNames: ['reason'],
      registers,
    });
    const fireErrors = new Counter({
      name: 'bullbeat_fire_loop_errors_total',
      help: 'Claim, enqueue or completion errors of this replica (Redis or BullMQ); the claims lapse and are taken again',
      registers,
    });
    const errored = new Counter({
      name: 'bullbeat_schedules_errored_total',
      help: 'Schedules this replica marked errored (a trigger that threw, a definition that cannot be read, a job BullMQ refused)',
      registers,
    });
    new Counter({
      name: 'bullbeat_claims_taken_over_total',
      help: 'Claims whose lease had lapsed (their replica died or stalled) that this replica took over',
      registers,
      collect() {
        const n = loopStats()?.reclaimed ?? 0;
        this.reset();
        if (n > 0) this.inc(n);
      },
    });
    new Counter({
      name: 'bullbeat_replica_waits_total',
      help: 'WAITs this replica sent after enqueues (replicaAcks: one per queue per enqueue); 0 when replicaAcks is off',
      registers,
      collect() {
        const n = loopStats()?.replicaWaits ?? 0;
        this.reset();
        if (n > 0) this.inc(n);
      },
    });
    new Counter({
      name: 'bullbeat_replica_acks_short_total',
      help: 'Enqueues acknowledged by fewer replicas than replicaAcks asks within its timeout (completed anyway: a master failover right then could lose the job)',
      registers,
      collect() {
        const n = loopStats()?.underAcked ?? 0;
        this.reset();
        if (n > 0) this.inc(n);
      },
    });
    new Gauge({
      name: 'bullbeat_scheduler_running',
      help: '1 while this process runs a scheduler replica (the fire loop), else 0',
      registers,
      collect() {
        this.set(source.running ? 1 : 0);
      },
    });

    // Every bounded series exists from the start at 0, so that rates and alerts see it before it moves.
    for (const kind of KINDS) {
      fires.inc({ kind, ...scheduleLabel(opted, undefined) }, 0);
      lateness.zero({ kind, ...scheduleLabel(opted, undefined) });
    }
    for (const reason of MISSED) missed.inc({ reason }, 0);

    const onFired = (e: FiredEvent) => {
      const labels = { kind: bounded(KINDS, e.kind), ...scheduleLabel(opted, e.scheduleId) };
      fires.inc(labels);
      lateness.observe(labels, Math.max(0, e.lateMs) / 1000);
    };
    const onLate = () => late.inc();
    const onMissed = (e: MissedEvent) => missed.inc({ reason: bounded(MISSED, e.reason) }, e.count);
    const onFailed = (e: FailedEvent) => {
      if (e.scheduleId === undefined) fireErrors.inc();
    };
    const onErrored = () => errored.inc();
    source.on('fired', onFired);
    source.on('late', onLate);
    source.on('missed', onMissed);
    source.on('failed', onFailed);
    source.on('errored', onErrored);
    this.detach.push(() => {
      source.off('fired', onFired);
      source.off('late', onLate);
      source.off('missed', onMissed);
      source.off('failed', onFailed);
      source.off('errored', onErrored);
    });
  }

  /** Stop listening to the manager. */
  close(): void {
    for (const d of this.detach.splice(0)) d();
  }
}
