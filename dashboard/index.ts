export { createDashboard, type Dashboard } from './create-dashboard.js';
export type { DashboardMetrics } from './dashboard-metrics.js';
export type { DashboardOptions } from './dashboard-options.js';
export type { ScheduleBadge, ScheduleStatus, ScheduleView } from './schedule-view.js';
export { type DashboardServer, type StartDashboardOptions, startDashboard } from './start-dashboard.js';
