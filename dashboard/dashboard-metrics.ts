import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunHistory, ScheduleIndex } from '../src/store/index.js';

/** The scheduler events the metrics listen to (a subset of `SchedulerEvents`). */
export interface MetricsEventSource {
  on(event: 'fired', listener: (e: { kind: string; lateMs: number }) => void): unknown;
  on(event: 'missed', listener: (e: { reason: string; count: number }) => void): unknown;
  on(event: 'skipped', listener: (e: { reason: string }) => void): unknown;
  on(event: 'failed', listener: (e: { scheduleId?: string }) => void): unknown;
  on(event: 'wake', listener: (e: { early: boolean; lateMs: number; claimed: number }) => void): unknown;
  on(event: 'errored', listener: (e: { scheduleId: string }) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
}

const LATENESS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

/** Bounded label values: anything else is counted as `other`. */
const KINDS = new Set(['scheduled', 'manual', 'catch-up']);
const REASONS = new Set([
  'overlap',
  'exclusion-group',
  'misfire',
  'catch-up-window',
  'max-catch-up',
  'paused',
]);
const bounded = (allowed: Set<string>, v: string) => (allowed.has(v) ? v : 'other');

/**
 * The dashboard's Prometheus metrics, in a registry of their own (never prom-client's global one).
 *
 * Labels are bounded: `kind` (scheduled/manual/catch-up), `reason` (the skip/miss reasons),
 * `outcome` (succeeded/failed/skipped/missed), `status` (the five schedule statuses) and `early`.
 * No schedule id or queue labels: 10,000 schedules would make 10,000 series.
 *
 * Two sources: events of the scheduler running in this process (fires, lateness, misfires, overlap
 * skips, fire-loop wake-ups; zero when no scheduler runs here) and, at scrape time, what Redis
 * holds for the whole deployment (run totals by outcome from `RunHistory`, schedules by status).
 * Run durations come from BullMQ's queue events (`observeRun`), fed by the dashboard.
 */
export class DashboardMetrics {
  readonly registry = new Registry();
  private readonly fires: Counter<'kind'>;
  private readonly lateness: Histogram<'kind'>;
  private readonly misfires: Counter<'reason'>;
  private readonly skips: Counter<'reason'>;
  private readonly failures: Counter;
  private readonly errored: Counter;
  private readonly wakeLateness: Histogram<'early'>;
  private readonly claimed: Histogram;
  private readonly durations: Histogram<'outcome'>;
  private readonly detach: (() => void)[] = [];

  /** @internal Made by `createDashboard`. */
  constructor(history: RunHistory, index: ScheduleIndex) {
    const registers = [this.registry];
    this.fires = new Counter({
      name: 'bullbeat_fires_total',
      help: 'Occurrences enqueued by the scheduler in this process',
      labelNames: ['kind'],
      registers,
    });
    this.lateness = new Histogram({
      name: 'bullbeat_fire_lateness_seconds',
      help: 'Enqueue time minus intended fire time (Redis clock), per occurrence fired in this process',
      labelNames: ['kind'],
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.misfires = new Counter({
      name: 'bullbeat_misfires_total',
      help: 'Occurrences recorded as missed by the scheduler in this process (misfire policy, window, cap)',
      labelNames: ['reason'],
      registers,
    });
    this.skips = new Counter({
      name: 'bullbeat_skips_total',
      help: 'Occurrences skipped when about to run (overlap, exclusion group), as reported in this process',
      labelNames: ['reason'],
      registers,
    });
    this.failures = new Counter({
      name: 'bullbeat_failures_total',
      help: 'Run failures and fire-loop errors reported in this process',
      registers,
    });
    this.errored = new Counter({
      name: 'bullbeat_schedules_errored_total',
      help: 'Schedules this process marked errored (a trigger or a job BullMQ refused; see the errored status)',
      registers,
    });
    this.wakeLateness = new Histogram({
      name: 'bullbeat_fire_loop_wake_lateness_seconds',
      help: 'How late the fire loop woke up past the time it was armed for',
      labelNames: ['early'],
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.claimed = new Histogram({
      name: 'bullbeat_fire_loop_claimed',
      help: 'Occurrences claimed per fire-loop wake-up',
      buckets: [0, 1, 2, 5, 10, 50, 100, 500, 1000],
      registers,
    });
    this.durations = new Histogram({
      name: 'bullbeat_run_duration_seconds',
      help: 'Run duration (BullMQ finishedOn - processedOn) of occurrence jobs, seen through queue events',
      labelNames: ['outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'bullbeat_runs_recorded',
      help: 'Occurrences recorded in Redis for the whole deployment, by outcome (cumulative, read at scrape time)',
      labelNames: ['outcome'],
      registers,
      async collect() {
        const t = await history.totals();
        this.set({ outcome: 'succeeded' }, Math.max(0, t.runs - t.errors));
        this.set({ outcome: 'failed' }, t.errors);
        this.set({ outcome: 'skipped' }, t.skipped);
        this.set({ outcome: 'missed' }, t.missed);
      },
    });
    new Gauge({
      name: 'bullbeat_schedules',
      help: 'Schedules in Redis by status (read at scrape time)',
      labelNames: ['status'],
      registers,
      async collect() {
        const counts = await index.statusCounts();
        for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
      },
    });
  }

  /** @internal Listen to a scheduler's events (the one in this process, if it runs the fire loop). */
  attach(source: MetricsEventSource): void {
    const fired = (e: { kind: string; lateMs: number }) => {
      const kind = bounded(KINDS, e.kind);
      this.fires.inc({ kind });
      this.lateness.observe({ kind }, Math.max(0, e.lateMs) / 1000);
    };
    const missed = (e: { reason: string; count: number }) =>
      this.misfires.inc({ reason: bounded(REASONS, e.reason) }, e.count);
    const skipped = (e: { reason: string }) => this.skips.inc({ reason: bounded(REASONS, e.reason) });
    const failed = () => this.failures.inc();
    const errored = () => this.errored.inc();
    const wake = (e: { early: boolean; lateMs: number; claimed: number }) => {
      this.wakeLateness.observe({ early: String(e.early) }, Math.max(0, e.lateMs) / 1000);
      this.claimed.observe(e.claimed);
    };
    source.on('fired', fired);
    source.on('missed', missed);
    source.on('skipped', skipped);
    source.on('failed', failed);
    source.on('wake', wake);
    source.on('errored', errored);
    this.detach.push(() => {
      source.off('errored', errored);
      source.off('fired', fired);
      source.off('missed', missed);
      source.off('skipped', skipped);
      source.off('failed', failed);
      source.off('wake', wake);
    });
  }

  /** @internal One finished occurrence job (from BullMQ queue events). */
  observeRun(outcome: 'succeeded' | 'failed', durationMs: number): void {
    this.durations.observe({ outcome }, Math.max(0, durationMs) / 1000);
  }

  /** @internal Closed with the dashboard. */
  close(): void {
    for (const d of this.detach.splice(0)) d();
  }
}
