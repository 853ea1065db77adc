import type { FleetReader } from '../src/ops/index.js';
import type { SchedulerManager } from '../src/scheduler/index.js';
import type { ScheduleIndex } from '../src/store/index.js';
import type { Csrf } from './csrf.js';
import type { DashboardMetrics } from './dashboard-metrics.js';
import type { ResolvedDashboardOptions } from './dashboard-options.js';
import type { DeploymentHealthReader } from './deployment-health.js';
import type { QueueBoard } from './queue-board.js';
import type { ScheduleReader } from './schedule-reader.js';

/** What the route modules share (built once by `createDashboard`). */
export interface DashboardContext {
  options: ResolvedDashboardOptions;
  scheduler: SchedulerManager;
  index: ScheduleIndex;
  reader: ScheduleReader;
  metrics: DashboardMetrics;
  board: QueueBoard;
  csrf: Csrf;
  /** Epoch ms; `Date.now` unless a test injects a clock. */
  now: () => number;
  /** The fleet registry (scheduler replicas and workers alive). */
  fleet: FleetReader;
  /** Late, failing and errored schedules (cached `cacheMs`). */
  health: DeploymentHealthReader;
}
