import { ConfigError } from '../src/errors/index.js';
import { nonEmpty, resolveDashboardCredentials } from './dashboard-credentials.js';
import type { DashboardOptions, ResolvedDashboardOptions } from './dashboard-options.js';
import { isHostName } from './open-mode-hosts.js';

/**
 * Apply the defaults once (environment included). Throws `ConfigError` when there are no
 * credentials and the dashboard was not told to run open, or when basic auth is half configured.
 */
export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  const env = options.env ?? process.env;
  const { token, user, password, open } = resolveDashboardCredentials(options, env);
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
