import type { Command } from 'commander';
import type { DashboardServer } from '../../../dashboard/index.js';
import { ConfigError } from '../../errors/index.js';
import { type FleetAlerts, FleetReader, watchFleetAlerts } from '../../ops/index.js';
import { createWorker, type WorkerHandle } from '../../queue/index.js';
import type { SchedulerManager } from '../../scheduler/index.js';
import { internalsOf } from '../../scheduler/index.js';
import { applyAlertFlags } from '../alert-flags.js';
import { assertPortFree } from '../assert-port-free.js';
import { cliConnection, resolveDashboardConfig, resolveWorkerConfig } from '../cli-config.js';
import type { CliIO } from '../cli-io.js';
import {
  type CommandContext,
  commandContext,
  loadScheduler,
  probeSchedulerRedis,
} from '../command-context.js';
import { resolvePrefix } from '../discover-prefix.js';
import { queuesWithoutSchedule, unhandledOnQueues } from '../fleet-notes.js';
import { numericFlag } from '../numeric-flag.js';
import { checkOpsConfig, processOpsFor } from '../process-ops-for.js';
import { cliTarget, probeRedis } from '../redis-probe.js';
import { runUntilSignal } from '../run-until-signal.js';
import {
  applyManagerTuning,
  type CliTuning,
  checkWorkerTuning,
  resolveCliTuning,
} from '../tuning-settings.js';

/** The worker of `bullbeat worker` and `bullbeat dev`: its queues follow `createWorker`'s rule unless configured. */
async function startWorker(
  ctx: CommandContext,
  scheduler: SchedulerManager,
  tuning: CliTuning,
  graceMs?: number,
): Promise<WorkerHandle> {
  const worker = resolveWorkerConfig(ctx.sources);
  const bullmq = {
    ...(worker.lockDurationMs !== undefined && { lockDuration: worker.lockDurationMs }),
    ...(worker.stalledIntervalMs !== undefined && { stalledInterval: worker.stalledIntervalMs }),
  };
  const handle = await createWorker(scheduler, {
    logger: ctx.logger,
    ...(worker.queues !== undefined && { queues: worker.queues }),
    ...(worker.concurrency !== undefined && { concurrency: worker.concurrency }),
    ...(graceMs !== undefined && { shutdownGraceMs: graceMs }),
    ...(worker.leaseTtlMs !== undefined && { leaseTtlMs: worker.leaseTtlMs }),
    ...(worker.exclusionWaitMs !== undefined && { exclusionWaitMs: worker.exclusionWaitMs }),
    ...(worker.rateMax !== undefined && {
      limiter: { max: worker.rateMax, durationMs: worker.rateDurationMs ?? 1000 },
    }),
    ...(Object.keys(bullmq).length > 0 && { bullmq }),
    ...(Object.keys(tuning.worker).length > 0 && { tuning: tuning.worker }),
  });
  await handle.ready();
  ctx.logger.info({ queues: handle.queues, handlers: internalsOf(scheduler).handlerNames() }, 'worker ready');
  if (worker.queues !== undefined) {
    const schedules = await scheduler.list();
    const idle = queuesWithoutSchedule(worker.queues, schedules);
    if (idle.length > 0) {
      ctx.logger.warn(
        { queues: idle },
        `--queues: no schedule uses ${idle.map((q) => `"${q}"`).join(', ')}: nothing bullbeat fires goes there`,
      );
    }
    // job names there that neither this worker nor a live one of the fleet handles on that queue
    const fleet = await new FleetReader(internalsOf(scheduler).redis, internalsOf(scheduler).prefix)
      .snapshot()
      .catch(() => undefined);
    const unhandled = unhandledOnQueues(
      worker.queues,
      schedules,
      (n) => !!internalsOf(scheduler).handlerFor(n),
      fleet,
    );
    for (const [queue, names] of Object.entries(unhandled)) {
      ctx.logger.warn(
        { queue, names },
        `--queues: on "${queue}", no live worker handles ${names.map((n) => `"${n}"`).join(', ')} (this one has no handler for them; fleet registry): their runs wait in the queue`,
      );
    }
  }
  return handle;
}

/**
 * `bullbeat dev`'s dashboard runs open when nothing says otherwise: no credentials, no `--open` /
 * `BULLBEAT_DASHBOARD_OPEN` either way, and a loopback host (or none, which open means 127.0.0.1).
 * Bound to another interface without credentials, it still refuses, as `bullbeat dashboard` does.
 */
function devOpensByDefault(ctx: CommandContext): boolean {
  const { flags, env } = ctx.sources;
  const set = (v: string | undefined) => v !== undefined && v !== '';
  if (
    set(env.BULLBEAT_DASHBOARD_TOKEN) ||
    set(env.BULLBEAT_DASHBOARD_USER) ||
    set(env.BULLBEAT_DASHBOARD_PASSWORD)
  )
    return false;
  if (flags.open !== undefined || set(env.BULLBEAT_DASHBOARD_OPEN)) return false;
  const { host } = resolveDashboardConfig(ctx.sources);
  return host === undefined || host === 'localhost' || host === '::1' || /^127\./.test(host);
}

async function startDashboardServer(
  ctx: CommandContext,
  options: { scheduler?: SchedulerManager; readOnly?: boolean; open?: boolean },
): Promise<DashboardServer> {
  const dash = resolveDashboardConfig(ctx.sources);
  if (options.open) dash.open = true;
  const { startDashboard } = await import('../../../dashboard/index.js');
  const portSetting = ctx.sources.flags.port !== undefined ? '--port' : 'PORT';
  // Open, the dashboard binds to loopback whatever the host asked for.
  await assertPortFree(dash.open ? '127.0.0.1' : (dash.host ?? '0.0.0.0'), dash.port, portSetting);
  try {
    return await startDashboard({
      port: dash.port,
      ...(dash.host !== undefined && { host: dash.host }),
      ...(dash.open && { open: true }),
      ...(options.readOnly && { readOnly: true }),
      logger: ctx.logger,
      env: ctx.sources.env,
      ...(options.scheduler
        ? { scheduler: options.scheduler }
        : {
            schedulerOptions: {
              prefix: ctx.config.prefix,
              connection: cliConnection(ctx.config),
              logger: ctx.logger,
            },
          }),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE')
      throw new ConfigError(portSetting, `port ${dash.port} is already in use`, { cause: error });
    if (code === 'EACCES')
      throw new ConfigError(portSetting, `not allowed to listen on port ${dash.port}`, { cause: error });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new ConfigError('--host', `cannot listen on ${dash.host}`, { cause: error });
    }
    throw error;
  }
}

/** `bullbeat dev <jobs-module>`: scheduler, worker and (unless --no-dashboard) dashboard in one process. */
export function devCommand(io: CliIO) {
  return async (specifier: string, options: { dashboard?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'dev');
    resolveDashboardConfig(ctx.sources);
    resolveWorkerConfig(ctx.sources);
    const tuning = resolveCliTuning(ctx.sources, ['scheduler', 'worker']);
    const workerTuning = checkWorkerTuning(tuning);
    applyAlertFlags(ctx, io);
    const { path, scheduler } = await loadScheduler(ctx, specifier, io.cwd);
    logTuning(ctx, { ...applyManagerTuning(scheduler, tuning), ...workerTuning });
    const openByDefault = options.dashboard !== false && devOpensByDefault(ctx);
    if (options.dashboard !== false) {
      // Credentials (or --open) are checked before anything starts.
      const { resolveDashboardOptions } = await import('../../../dashboard/internal.js');
      const dash = resolveDashboardConfig(ctx.sources);
      resolveDashboardOptions({
        scheduler,
        env: ctx.sources.env,
        logger: ctx.logger,
        ...((dash.open || openByDefault) && { open: true }),
      });
    }
    const opsConfig = await checkOpsConfig(ctx);
    await probeSchedulerRedis(ctx, scheduler);
    return runUntilSignal(ctx.logger, async () => {
      let worker: WorkerHandle | undefined;
      let dashboard: DashboardServer | undefined;
      let ops: { stop(): Promise<void> } | undefined;
      const stop = async () => {
        await ops?.stop();
        await worker?.close();
        await scheduler.stop();
        await dashboard?.close();
        await scheduler.close();
      };
      try {
        await scheduler.start();
        worker = await startWorker(ctx, scheduler, tuning);
        ops = await processOpsFor(ctx, opsConfig, scheduler, { replica: true, worker });
        if (options.dashboard !== false)
          dashboard = await startDashboardServer(ctx, { scheduler, open: openByDefault });
      } catch (error) {
        await stop().catch(() => undefined);
        throw error;
      }
      const openNote = openByDefault
        ? ' (dashboard open: no credentials, on 127.0.0.1 only; set BULLBEAT_DASHBOARD_TOKEN to require one)'
        : '';
      ctx.logger.info(
        {
          jobsModule: path,
          prefix: internalsOf(scheduler).prefix,
          ...(dashboard && { dashboard: dashboard.url }),
        },
        dashboard
          ? `bullbeat dev: running; dashboard at ${dashboard.url}${openNote}`
          : 'bullbeat dev: running',
      );
      return stop;
    });
  };
}

/**
 * `bullbeat scheduler [jobs-module]` (alias `schedule:run`): one scheduler replica. Without a jobs
 * module it fires the runtime schedules already in Redis (made by `schedule:add`, the API, the
 * dashboard or `import:bullmq`), on the deployment the CLI's rule picks.
 */
export function schedulerCommand(io: CliIO) {
  return async (
    specifier: string | undefined,
    options: { maxFiresPerSecond?: string },
    command: Command,
  ): Promise<number> => {
    const ctx = commandContext(io, command, 'scheduler');
    const tuning = resolveCliTuning(ctx.sources, ['scheduler']);
    applyAlertFlags(ctx, io);
    const cap = numericFlag('--max-fires-per-second', options.maxFiresPerSecond);
    if (cap !== undefined && (!Number.isInteger(cap) || cap < 0)) {
      throw new ConfigError(
        '--max-fires-per-second',
        `expected a whole number of occurrences per second, 0 for none (got "${options.maxFiresPerSecond}")`,
      );
    }
    const { path, scheduler } =
      specifier === undefined ? await runtimeOnlyScheduler(ctx) : await loadScheduler(ctx, specifier, io.cwd);
    // the resolved options are the fire loop's: set before start, the flag wins over the module
    if (cap !== undefined)
      (internalsOf(scheduler).options as { maxFiresPerSecond: number }).maxFiresPerSecond = cap;
    logTuning(ctx, applyManagerTuning(scheduler, tuning));
    const opsConfig = await checkOpsConfig(ctx);
    await probeSchedulerRedis(ctx, scheduler);
    return runUntilSignal(ctx.logger, async () => {
      await scheduler.start();
      const ops = await processOpsFor(ctx, opsConfig, scheduler, { replica: true }).catch(async (err) => {
        await scheduler.stop().catch(() => undefined);
        throw err;
      });
      ctx.logger.info(
        { jobsModule: path, prefix: internalsOf(scheduler).prefix },
        'scheduler replica running',
      );
      return async () => {
        await ops.stop();
        await scheduler.stop();
      };
    });
  };
}

/** The knobs the command line set, as in force, in one line of the log (none: no line). */
function logTuning(ctx: CommandContext, tuning: Record<string, unknown>): void {
  if (Object.keys(tuning).length === 0) return;
  ctx.logger.info({ tuning }, 'tuning from the command line (--tuning, BULLBEAT_TUNING)');
}

/** A manager with no schedule of its own, on the configured Redis and the deployment `resolvePrefix` picks. */
async function runtimeOnlyScheduler(
  ctx: CommandContext,
): Promise<{ path: string; scheduler: SchedulerManager }> {
  await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
  await resolvePrefix(ctx);
  const { SchedulerManager } = await import('../../scheduler/index.js');
  const scheduler = new SchedulerManager({
    prefix: ctx.config.prefix,
    connection: cliConnection(ctx.config),
    logger: ctx.logger,
    pauseOrphans: false,
  });
  return { path: '(none: runtime schedules only)', scheduler };
}

/** `bullbeat worker <jobs-module>`: consume the schedules' queues and run their handlers. */
export function workerCommand(io: CliIO) {
  return async (specifier: string, options: { graceMs?: string }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'worker');
    resolveWorkerConfig(ctx.sources);
    const tuning = resolveCliTuning(ctx.sources, ['worker']);
    const workerTuning = checkWorkerTuning(tuning);
    applyAlertFlags(ctx, io);
    const graceMs = numericFlag('--grace-ms', options.graceMs) ?? 30_000;
    if (!Number.isInteger(graceMs) || graceMs < 0) {
      throw new ConfigError(
        '--grace-ms',
        `expected a whole number of milliseconds (got "${options.graceMs}")`,
      );
    }
    const { path, scheduler } = await loadScheduler(ctx, specifier, io.cwd);
    logTuning(ctx, workerTuning);
    const opsConfig = await checkOpsConfig(ctx);
    await probeSchedulerRedis(ctx, scheduler);
    return runUntilSignal(
      ctx.logger,
      async () => {
        const worker = await startWorker(ctx, scheduler, tuning, graceMs);
        const ops = await processOpsFor(ctx, opsConfig, scheduler, { replica: false, worker }).catch(
          async (err) => {
            await worker.close().catch(() => undefined);
            throw err;
          },
        );
        ctx.logger.info({ jobsModule: path }, 'worker running');
        return async () => {
          await ops.stop();
          await worker.close();
          await scheduler.close();
        };
      },
      { stopDeadlineMs: graceMs + 15_000 },
    );
  };
}

/**
 * `bullbeat dashboard`: the dashboard alone, on the configured Redis and prefix. It also watches the
 * fleet for `no-scheduler` and delivers the outbox to the notifiers it is given (`--notifier`,
 * `BULLBEAT_NOTIFIERS`): a deployment whose only survivor is the dashboard still hears that no replica
 * is alive (`watchFleetAlerts`).
 */
export function dashboardCommand(io: CliIO) {
  return async (options: { readOnly?: boolean; check?: boolean }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'dashboard');
    const dash = resolveDashboardConfig(ctx.sources);
    // Credentials first, before Redis: a dashboard without them fails at once with the reason.
    const { resolveDashboardCredentials } = await import('../../../dashboard/internal.js');
    const credentials = resolveDashboardCredentials({ ...(dash.open && { open: true }) }, ctx.sources.env);
    applyAlertFlags(ctx, io);
    if (options.check) {
      const auth = credentials.open
        ? 'open, on 127.0.0.1 only'
        : [credentials.token && 'bearer token', credentials.user && 'basic auth']
            .filter(Boolean)
            .join(' and ');
      io.stdout(`bullbeat dashboard: configuration ok (${auth}; port ${dash.port})\n`);
      return 0;
    }
    await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
    await resolvePrefix(ctx);
    return runUntilSignal(ctx.logger, async () => {
      const { SchedulerManager } = await import('../../scheduler/index.js');
      const scheduler = new SchedulerManager({
        role: 'client',
        prefix: ctx.config.prefix,
        connection: cliConnection(ctx.config),
        logger: ctx.logger,
      });
      let server: DashboardServer | undefined;
      let alerts: FleetAlerts | undefined;
      const stop = async () => {
        await alerts?.stop();
        await server?.close();
        await scheduler.close();
      };
      try {
        server = await startDashboardServer(ctx, { scheduler, readOnly: options.readOnly === true });
        alerts = await watchFleetAlerts(scheduler, 'dashboard', ctx.logger);
      } catch (error) {
        await stop().catch(() => undefined);
        throw error;
      }
      return stop;
    });
  };
}
