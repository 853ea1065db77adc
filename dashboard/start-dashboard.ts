import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { SchedulerManagerOptions } from '../src/scheduler/index.js';
import { internalsOf, SchedulerManager } from '../src/scheduler/index.js';
import { checkDeployment } from '../src/store/index.js';
import { createDashboard, type Dashboard } from './create-dashboard.js';
import type { DashboardOptions } from './dashboard-options.js';
import { resolveDashboardOptions } from './resolve-dashboard-options.js';

/** Options of `startDashboard()` (what `bullbeat dashboard` calls). */
export interface StartDashboardOptions extends Omit<DashboardOptions, 'scheduler' | 'basePath'> {
  /** TCP port; 0 picks a free one. Default: `3000`. */
  port?: number;
  /** Interface to bind. Default: `'0.0.0.0'` with credentials; always `'127.0.0.1'` when running open. */
  host?: string;
  /** The scheduler to show. Default: a new client-role manager from `schedulerOptions`, closed by `close()`. */
  scheduler?: SchedulerManager;
  /** Options of the manager created when `scheduler` is not given. Default: `{}` (REDIS_URL, BULLBEAT_PREFIX or `bullbeat`). */
  schedulerOptions?: SchedulerManagerOptions;
}

/** A running standalone dashboard. */
export interface DashboardServer {
  /** `http://host:port` (the schedules page is at `/`). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly app: Dashboard;
  readonly server: Server;
  /** Stop listening, close the dashboard, and the manager if `startDashboard` created it. Safe to call twice. */
  close(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

/**
 * Serve the dashboard on its own. Refuses to start (throws `ConfigError`) without credentials unless
 * told to run open, and with a partition count other than the one its deployment recorded; open, it binds to 127.0.0.1 only and logs a warning saying so. Never exits the process.
 */
export async function startDashboard(options: StartDashboardOptions = {}): Promise<DashboardServer> {
  const { port = 3000, host: wantedHost, scheduler: given, schedulerOptions, ...rest } = options;
  const scheduler = given ?? new SchedulerManager({ role: 'client', ...schedulerOptions });
  const owned = given === undefined;
  let app: Dashboard;
  try {
    const resolved = resolveDashboardOptions({ ...rest, scheduler });
    // refuses a partition count other than the deployment's (a ConfigError naming both) and a data
    // format newer than this release's (a DataFormatError naming both)
    await checkDeployment(internalsOf(scheduler).redis, internalsOf(scheduler).keys, false);
    app = createDashboard({ ...rest, scheduler });
    const host = resolved.open ? LOOPBACK : (wantedHost ?? '0.0.0.0');
    if (resolved.open) {
      resolved.logger.warn(
        { host: LOOPBACK, requestedHost: wantedHost },
        'bullbeat dashboard: running OPEN (no authentication); bound to 127.0.0.1 only',
      );
    }
    const root = express();
    root.disable('x-powered-by');
    root.use(app);
    const server = await new Promise<Server>((resolve, reject) => {
      const s = root.listen(port, host, () => resolve(s));
      s.once('error', reject);
    });
    const address = server.address() as AddressInfo;
    const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host;
    const url = `http://${shownHost}:${address.port}`;
    resolved.logger.info({ url }, 'bullbeat dashboard: listening');
    let closing: Promise<void> | undefined;
    return {
      url,
      host,
      port: address.port,
      app,
      server,
      close: () => {
        closing ??= (async () => {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          });
          await app.close();
          if (owned) await scheduler.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    if (owned) await scheduler.close().catch(() => undefined);
    throw err;
  }
}
