// vitest `sequence.sequencer`: the pool starts the longest files first, so that the last minutes are
// spent on short files side by side rather than on one long file alone (a clean clone, as CI has, has
// no vitest cache of durations, and vitest's own order is then by project name and file size).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file took, the mean of four runs of the suite on a loaded 2-core box (2026-12-04; files of
 * 8 s or more; the chaos tiers', run after the others, at the end). Only the order counts: a file
 * not listed runs after these, in vitest's order; a renamed file only loses its place.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/pack/nest-apps.test.ts': 95,
  'test/labels/bulk-100k.test.ts': 74, // the volume tier's (2026-12-06, one run of the redis tier at load 8)
  'test/queue/group.test.ts': 39,
  'test/scheduler/spread.test.ts': 32,
  'test/cli/plan-calendars.test.ts': 20,
  'test/cli/alerts.test.ts': 12,
  'test/pack/nest-versions.test.ts': 90,
  'test/pack/quickstart.test.ts': 70,
  'test/cli/npm-start.test.ts': 51,
  'test/deploy/compose.test.ts': 45,
  'test/queue/overlap.test.ts': 32,
  'test/queue/lost-attempt.test.ts': 31,
  'test/scheduler/commit-ahead.test.ts': 30,
  'test/cli/migrate-bullmq-orders.test.ts': 24, // 2026-12-06: 22-26 s alone at load 7-17, 23.5 s in a redis tier run
  'test/dashboard/dashboard.browser.test.ts': 29,
  'test/pack/node-versions.test.ts': 27,
  'test/cli/services.test.ts': 26,
  'test/deploy/compose-cluster.test.ts': 24,
  'test/cli/redis-unreachable.test.ts': 23,
  'test/cluster/cluster.test.ts': 22,
  'test/dashboard/time-zones.browser.test.ts': 21,
  'test/scheduler/replica-memory.test.ts': 20,
  'test/tracing/traces.test.ts': 19,
  'test/scheduler/audit-kill.test.ts': 19,
  'test/scheduler/reschedule-race.test.ts': 18,
  'test/cli/jobs-module.test.ts': 18,
  'test/scheduler/claim-ahead.test.ts': 18,
  'test/cluster/replica-acks.test.ts': 16,
  'test/cluster/controls.test.ts': 14,
  'test/scheduler/backpressure.test.ts': 13,
  'test/scheduler/decorators.test.ts': 13,
  'test/queue/shutdown.test.ts': 12,
  'test/insight/why.test.ts': 11,
  'test/ops/operations.test.ts': 11,
  'test/queue/exclusion-group.test.ts': 11,
  'test/scheduler/backfill.test.ts': 11,
  'test/triggers/except-trigger.test.ts': 11,
  'test/cluster/import-bullmq.test.ts': 9,
  'test/dashboard/backfill.browser.test.ts': 9,
  'test/cli/own-project.test.ts': 9,
  'test/scheduler/firing.test.ts': 9,
  'test/queue/fencing.test.ts': 8,
  'test/scheduler/foreign-outcomes.test.ts': 8,
  // unit files that type-check a program as they load (5-6 s and 3-4 s): not the pool's last minute
  'test/architecture/redis-door.test.ts': 8,
  'test/architecture/public-api.test.ts': 8,
  // the chaos tier, three at a time, then chaos-tight, two at a time (2026-12-04)
  'test/scheduler/alerts/alerts-chaos.test.ts': 26, // 2026-12-06, in the redis tier then
  'test/cluster/failover.test.ts': 60,
  'test/chaos/default-chaos.test.ts': 51,
  'test/scheduler/exactly-once.test.ts': 40,
  'test/scheduler/failover-processes.test.ts': 31,
  'test/scheduler/stalled-replica.test.ts': 27, // alone; two 8 s stalls
  'test/scheduler/stalled-backfill.test.ts': 22, // alone; a 15 s stall
  'test/cluster/partition-loop.test.ts': 16,
  'test/scheduler/failover.test.ts': 11,
  'test/scheduler/replica-share.test.ts': 33,
  'test/scheduler/trust-chaos.test.ts': 18,
};

export class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) => SLOW_FILES[relative(root, spec.moduleId)] ?? 0;
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // stable: equal weights (every file not listed) keep vitest's order
    return base
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => group(a.spec) - group(b.spec) || seconds(b.spec) - seconds(a.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
