import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DashboardMetrics } from './dashboard-metrics.js';

/**
 * The dashboard: a request handler (an Express app inside) to mount in your own app
 * (`app.use('/ops', dashboard)`: links follow the mount path, or `http.createServer(dashboard)`), or to
 * serve on its own (`startDashboard`). Typed with Node's types only, so that it type-checks in a
 * project without `@types/express` (and with `skipLibCheck: false`).
 */
export interface Dashboard {
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** Close what the dashboard opened (Bull Board's queue connections, event listeners). Not the scheduler. */
  close(): Promise<void>;
  /** The dashboard's Prometheus registry and instruments. */
  readonly metrics: DashboardMetrics;
}
