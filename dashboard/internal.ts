// The dashboard's door for the CLI, beside its published entry (`index.ts`, `bullbeat/dashboard`):
// what `bullbeat status` and `bullbeat dev` use of it that is not public API. Nothing here loads Express.
export { resolveDashboardCredentials } from './dashboard-credentials.js';
export { DeploymentHealthReader } from './deployment-health.js';
export { resolveDashboardOptions } from './resolve-dashboard-options.js';
export { batchItems } from './schedule-batch.js';
export { ScheduleReader } from './schedule-reader.js';
