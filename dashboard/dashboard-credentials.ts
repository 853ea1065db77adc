import { ConfigError } from '../src/errors/index.js';

export const nonEmpty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/** How the dashboard authenticates: a bearer token and/or basic auth, or open (none). */
export interface DashboardCredentials {
  token: string | undefined;
  user: string | undefined;
  password: string | undefined;
  open: boolean;
}

/**
 * The dashboard's credentials from its options, else the environment (`BULLBEAT_DASHBOARD_TOKEN`,
 * `_USER`, `_PASSWORD`, `_OPEN`). Throws `ConfigError` when there are none and the dashboard was not
 * told to run open, or when basic auth is half configured. Needs no Redis: the CLI checks it first.
 */
export function resolveDashboardCredentials(
  options: { token?: string; user?: string; password?: string; open?: boolean },
  env: NodeJS.ProcessEnv,
): DashboardCredentials {
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
  return { token, user, password, open };
}
