import type { Logger } from 'pino';
import type { SchedulerManager } from '../src/scheduler/index.js';

/** Options of `createDashboard()` (mounted in your own Express app) and `startDashboard()`. */
export interface DashboardOptions {
  /** The scheduler whose schedules the dashboard shows and acts on (it need not be started). Required. */
  scheduler: SchedulerManager;
  /**
   * Bearer token accepted on every route (`Authorization: Bearer <token>`).
   * @defaultValue `BULLBEAT_DASHBOARD_TOKEN`
   */
  token?: string;
  /**
   * The token's name: who a change made with it is in a schedule's audit trail (`api:<name>`).
   * @defaultValue `BULLBEAT_DASHBOARD_TOKEN_NAME`, else `token`
   */
  tokenName?: string;
  /**
   * Basic-auth user name.
   * @defaultValue `BULLBEAT_DASHBOARD_USER`
   */
  user?: string;
  /**
   * Basic-auth password.
   * @defaultValue `BULLBEAT_DASHBOARD_PASSWORD`
   */
  password?: string;
  /**
   * Run without authentication. Without credentials the dashboard refuses to start unless this is
   * set; `startDashboard` then binds to 127.0.0.1 only.
   * @defaultValue `BULLBEAT_DASHBOARD_OPEN=1`, else false
   */
  open?: boolean;
  /**
   * Host names, besides loopback ones, that a dashboard running open answers. Open, it refuses (403)
   * any request whose `Host` is not `localhost`, `127.x.x.x` or `[::1]` (any port), so that a page
   * rebinding its DNS name to 127.0.0.1 cannot drive it; list here the names you deliberately serve
   * it under (without port). Ignored with credentials: any `Host` is then accepted.
   * @defaultValue `BULLBEAT_DASHBOARD_ALLOWED_HOSTS` (comma-separated), else none
   */
  allowedHosts?: string[];
  /**
   * Read-only: every write answers 405 and Bull Board runs in `readOnlyMode`.
   * @defaultValue `false`
   */
  readOnly?: boolean;
  /**
   * Whether `/metrics` asks for credentials like every other route.
   * @defaultValue `true`
   */
  metricsAuth?: boolean;
  /**
   * The dashboard's public path, when it differs from where your app mounts it: a proxy in front
   * that strips `/ops` before your app sees the request. Not needed for `app.use('/ops', dashboard)`:
   * links, redirects, cookie paths and Bull Board's base follow the mount path (`req.baseUrl`).
   * @defaultValue the mount path of each request
   */
  basePath?: string;
  /**
   * How long the list of queues (for Bull Board) and the deployment's health (late, failing, errored) are
   * reused, in ms. The health is reused at least five times as long as it took to compute (its failing
   * check reads every active schedule's recent records: seconds at 100,000 schedules). The schedules
   * list reads Redis at each page (its indexes: what the page needs).
   * @defaultValue `2000`
   */
  cacheMs?: number;
  /**
   * Schedules per page on `/` and in the list API.
   * @defaultValue `50` (the API takes `?limit=` up to 500)
   */
  pageSize?: number;
  /**
   * Failed authentication attempts (wrong bearer token, basic-auth password or sign-in form token)
   * allowed per client address (`req.ip`, which honours Express's `trust proxy`) per window; past it
   * the client gets 429 with `Retry-After` until the window ends, right credentials included. `0`
   * turns the limit off.
   * @defaultValue `10`
   */
  authFailureLimit?: number;
  /**
   * The window of `authFailureLimit`, in ms, counted from a client's first failure.
   * @defaultValue `60000`
   */
  authFailureWindowMs?: number;
  /**
   * Where the dashboard logs.
   * @defaultValue the scheduler's logger
   */
  logger?: Logger;
  /**
   * Environment read for the defaults above.
   * @defaultValue `process.env`
   */
  env?: NodeJS.ProcessEnv;
}

/** `DashboardOptions` with every default applied (see `resolveDashboardOptions`). */
export interface ResolvedDashboardOptions {
  scheduler: SchedulerManager;
  token: string | undefined;
  tokenName: string;
  user: string | undefined;
  password: string | undefined;
  open: boolean;
  /** Lowercase. */
  allowedHosts: string[];
  readOnly: boolean;
  metricsAuth: boolean;
  /** Trailing slash removed; undefined: each request's mount path. */
  basePath: string | undefined;
  cacheMs: number;
  pageSize: number;
  authFailureLimit: number;
  authFailureWindowMs: number;
  logger: Logger;
}
