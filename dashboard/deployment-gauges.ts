import { Gauge, type Registry } from 'prom-client';
import type { FleetReader } from '../src/ops/index.js';
import type { DeploymentHealthReader } from './deployment-health.js';
import { type GroupReader, registerGroupGauges } from './group-gauges.js';

/** BullMQ job states counted per queue. */
const STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'paused'] as const;

/** What the queue-depth gauge reads: the deployment's queue names and BullMQ counts per queue. */
export interface QueueCounts {
  queues(): Promise<string[]>;
  counts(queue: string, states: readonly string[]): Promise<Record<string, number>>;
}

/**
 * The deployment-wide gauges of the dashboard's `/metrics`, read from Redis at scrape time: late,
 * failing and errored schedules (the stale-schedule alert), live scheduler replicas and workers
 * (the fleet registry), and BullMQ queue depth per queue and state. Labels are bounded by the
 * deployment's queues and BullMQ's states; no schedule ids.
 */
export function registerDeploymentGauges(
  registry: Registry,
  sources: { health: DeploymentHealthReader; fleet: FleetReader; queues: QueueCounts; groups?: GroupReader },
): void {
  const registers = [registry];
  const { health, fleet, queues } = sources;
  if (sources.groups) registerGroupGauges(registry, sources.groups);
  new Gauge({
    name: 'bullbeat_schedules_late',
    help: 'Active schedules due more than lateThresholdMs ago and not enqueued (no replica claimed them, or their claimant died)',
    registers,
    async collect() {
      this.set((await health.read()).late);
    },
  });
  new Gauge({
    name: 'bullbeat_schedules_failing',
    help: 'Active schedules with no success for several expected intervals (or whose last few finished occurrences all failed or were missed)',
    registers,
    async collect() {
      this.set((await health.read()).failing);
    },
  });
  new Gauge({
    name: 'bullbeat_replicas',
    help: 'Scheduler replicas alive (fleet heartbeat younger than three heartbeats)',
    registers,
    async collect() {
      this.set((await fleet.snapshot()).replicas);
    },
  });
  new Gauge({
    name: 'bullbeat_workers',
    help: 'Worker processes alive (fleet heartbeat younger than three heartbeats)',
    registers,
    async collect() {
      this.set((await fleet.snapshot()).workers);
    },
  });
  new Gauge({
    name: 'bullbeat_queue_jobs',
    help: 'BullMQ jobs per queue and state (the queues the schedules target)',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const queue of await queues.queues()) {
        const counts = await queues.counts(queue, STATES);
        for (const state of STATES) this.set({ queue, state }, counts[state] ?? 0);
      }
    },
  });
}
