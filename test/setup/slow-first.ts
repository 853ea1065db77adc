// vitest `sequence.sequencer`: the pool starts the longest files first, so that the last minutes are
// spent on short files side by side rather than on one long file alone (a clean clone, as CI has, has
// no vitest cache of durations, and vitest's own order is then by project name and file size).
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each file took in one run of the whole suite on a loaded 2-core box (files of 8 s or more;
 * the chaos tier's, run three at a time after the others, at the end). Only the order counts: a file
 * not listed runs after these, in vitest's order; a renamed file only loses its place.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/pack/nest-versions.test.ts': 303,
  'test/scheduler/audit-kill.test.ts': 179,
  'test/scheduler/replica-memory.test.ts': 176,
  'test/pack/node-versions.test.ts': 163,
  'test/pack/quickstart.test.ts': 142,
  'test/scheduler/decorators.test.ts': 123,
  'test/cli/npm-start.test.ts': 105,
  'test/queue/lost-attempt.test.ts': 97,
  'test/queue/overlap.test.ts': 89,
  'test/deploy/compose.test.ts': 87,
  'test/pack/nest-apps.test.ts': 87,
  'test/dashboard/dashboard.browser.test.ts': 66,
  'test/cli/redis-unreachable.test.ts': 63,
  'test/triggers/except-trigger.test.ts': 57,
  'test/tracing/traces.test.ts': 55,
  'test/deploy/compose-cluster.test.ts': 55,
  'test/cli/services.test.ts': 46,
  'test/dashboard/time-zones.browser.test.ts': 45,
  'test/cli/jobs-module.test.ts': 39,
  'test/queue/shutdown.test.ts': 39,
  'test/queue/exclusion-group.test.ts': 33,
  'test/scheduler/commit-ahead.test.ts': 33,
  'test/cli/own-project.test.ts': 33,
  'test/cluster/cluster.test.ts': 30,
  'test/cli/logs.test.ts': 28,
  'test/queue/fencing.test.ts': 27,
  'test/scheduler/misfire.test.ts': 26,
  'test/cli/output-hygiene.test.ts': 25,
  'test/cron/properties.test.ts': 24,
  'test/cli/schedule-overlap.test.ts': 24,
  'test/scheduler/reschedule-race.test.ts': 23,
  'test/scheduler/burst.test.ts': 22,
  'test/scheduler/claim-ahead.test.ts': 20,
  'test/scheduler/backfill.test.ts': 20,
  'test/cli/schedule-poison.test.ts': 19,
  'test/triggers/interval-trigger.test.ts': 18,
  'test/scheduler/backpressure.test.ts': 18,
  'test/dashboard/mount.test.ts': 18,
  'test/deploy/repository-files.test.ts': 17,
  'test/dashboard/backfill.browser.test.ts': 15,
  'test/ops/operations.test.ts': 15,
  'test/cli/migrate-bullmq.test.ts': 15,
  'test/cli/schedule-add-budget.test.ts': 15,
  'test/ops/ops-config.test.ts': 14,
  'test/cli/partition-count.test.ts': 13,
  'test/queue/plain-payload.test.ts': 13,
  'test/insight/why.test.ts': 13,
  'test/dashboard/api-overlap.test.ts': 13,
  'test/dashboard/no-worker-badge.test.ts': 12,
  'test/dashboard/charts-times.browser.test.ts': 12,
  'test/triggers/cron-trigger.test.ts': 10,
  'test/store/one-rule-everywhere.test.ts': 10,
  'test/scheduler/firing.test.ts': 10,
  'test/scheduler/pause-resume-policy.test.ts': 9,
  'test/scheduler/foreign-outcomes.test.ts': 9,
  'test/dashboard/poison.test.ts': 9,
  'test/cli/terminal-escapes.test.ts': 9,
  'test/scheduler/trigger-budget.test.ts': 9,
  'test/cluster/replica-acks.test.ts': 9,
  'test/scheduler/persistence.test.ts': 8,
  // unit files that type-check a program as they load (5-6 s and 3-4 s): not the pool's last minute
  'test/architecture/redis-door.test.ts': 8,
  'test/architecture/public-api.test.ts': 8,
  // the chaos tier (2026-12-03)
  'test/cluster/failover.test.ts': 52,
  'test/chaos/default-chaos.test.ts': 45,
  'test/scheduler/failover.test.ts': 32,
  'test/scheduler/exactly-once.test.ts': 32,
  'test/scheduler/replica-share.test.ts': 31,
  'test/scheduler/trust-chaos.test.ts': 17,
  'test/cluster/partition-loop.test.ts': 15,
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
