import { ConfigError } from '../src/errors/index.js';
import type { DashboardOptions, ResolvedDashboardOptions } from './dashboard-options.js';
import { isHostName } from './open-mode-hosts.js';

const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/**
 * Apply the defaults once (environment included). Throws `ConfigError` when there are no
 * credentials and the dashboard was not told to run open, or when basic auth is half configured.
 */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  const env = options.env ?? process.env;
  const token = nonEmpty(options.token ?? env.BULLBEAT_DASHBOARD_TOKEN);
  const user = nonEmpty(options.user ?? env.BULLBEAT_DASHBOARD_USER);
  const password = nonEmpty(options.password ?? env.BULLBEAT_DASHBOARD_PASSWORD);
  const open =
    options.open ?? ['1', 'true', 'yes'].includes((env.BULLBEAT_DASHBOARD_OPEN ?? '').toLowerCase());
  if ((user === undefined) !== (password === undefined)) {
    throw new ConfigError(
      user === undefined ? 'BULLBEAT_DASHBOARD_USER' : 'BULLBEAT_DASHBOARD_PASSWORD',
      'basic auth needs both BULLBEAT_DASHBOARD_USER and BULLBEAT_DASHBOARD_PASSWORD',
    );
  }
  if (!open && token === undefined && user === undefined) {
    throw new ConfigError(
      'BULLBEAT_DASHBOARD_TOKEN',
      'the dashboard has no credentials: set BULLBEAT_DASHBOARD_TOKEN and/or BULLBEAT_DASHBOARD_USER and ' +
        'BULLBEAT_DASHBOARD_PASSWORD, or run it open on 127.0.0.1 with BULLBEAT_DASHBOARD_OPEN=1 (--open)',
    );
  }
  if (!options.scheduler) throw new ConfigError('scheduler', 'createDashboard needs a SchedulerManager');
  const basePath = options.basePath?.replace(/\/+$/, '');
  if (basePath !== undefined && basePath !== '' && !basePath.startsWith('/')) {
    throw new ConfigError('basePath', `must start with "/", got "${basePath}"`);
  }
  const cacheMs = options.cacheMs ?? 2000;
  const pageSize = options.pageSize ?? 50;
  if (!(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 500)) {
    throw new ConfigError('pageSize', `must be an integer from 1 to 500, got ${pageSize}`);
  }
  const allowedHosts = (
    options.allowedHosts ?? (env.BULLBEAT_DASHBOARD_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim())
  )
    .filter((h) => h !== '')
    .map((h) => h.toLowerCase());
  const badHost = allowedHosts.find((h) => !isHostName(h));
  if (badHost !== undefined) {
    throw new ConfigError(
      'allowedHosts',
      `"${badHost}" is not a host name (give names like "dash.internal", without scheme, port or path)`,
    );
  }
  const authFailureLimit = options.authFailureLimit ?? 10;
  if (!(Number.isInteger(authFailureLimit) && authFailureLimit >= 0)) {
    throw new ConfigError('authFailureLimit', `must be an integer >= 0, got ${authFailureLimit}`);
  }
  const authFailureWindowMs = options.authFailureWindowMs ?? 60_000;
  if (!(Number.isFinite(authFailureWindowMs) && authFailureWindowMs > 0)) {
    throw new ConfigError('authFailureWindowMs', `must be a number of ms > 0, got ${authFailureWindowMs}`);
  }
  return {
    scheduler: options.scheduler,
    token,
    tokenName: nonEmpty(options.tokenName ?? env.BULLBEAT_DASHBOARD_TOKEN_NAME) ?? 'token',
    user,
    password,
    open,
    allowedHosts,
    readOnly: options.readOnly ?? false,
    metricsAuth: options.metricsAuth ?? true,
    basePath,
    cacheMs,
    pageSize,
    authFailureLimit,
    authFailureWindowMs,
    logger: options.logger ?? options.scheduler.logger,
  };
}
