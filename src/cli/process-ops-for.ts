import type { WorkerMetricsSource } from '../ops/index.js';
import { type ProcessOps, startProcessOps } from '../ops/index.js';
import { packageVersion } from '../package-version.js';
import type { SchedulerManager } from '../scheduler/index.js';
import { assertPortFree } from './assert-port-free.js';
import { type OpsConfig, resolveOpsConfig } from './cli-config.js';
import type { CommandContext } from './command-context.js';

/**
 * The operations side of `bullbeat scheduler`, `worker` and `dev`: join the fleet and collect this
 * process's metrics; serve them when `--metrics-port` / `BULLBEAT_METRICS_PORT` is set.
 */
export async function processOpsFor(
  ctx: CommandContext,
  ops: OpsConfig,
  scheduler: SchedulerManager,
  roles: { replica: boolean; worker?: WorkerMetricsSource },
): Promise<ProcessOps> {
  return startProcessOps({
    scheduler,
    replica: roles.replica,
    ...(roles.worker && { worker: roles.worker }),
    ...(ops.metricsPort !== undefined && { metricsPort: ops.metricsPort }),
    ...(ops.metricsHost !== undefined && { metricsHost: ops.metricsHost }),
    ...(ops.heartbeatMs !== undefined && { heartbeatMs: ops.heartbeatMs }),
    ...(ops.scheduleLabels !== undefined && { scheduleLabels: ops.scheduleLabels }),
    version: packageVersion(),
    logger: ctx.logger,
  });
}

/** Validates the operations settings and checks the metrics port before anything starts (exit 2 when wrong). */
export async function checkOpsConfig(ctx: CommandContext): Promise<OpsConfig> {
  const ops = resolveOpsConfig(ctx.sources);
  if (ops.metricsPort !== undefined && ops.metricsPort !== 0) {
    const setting = ctx.sources.flags.metricsPort !== undefined ? '--metrics-port' : 'BULLBEAT_METRICS_PORT';
    await assertPortFree(ops.metricsHost ?? '0.0.0.0', ops.metricsPort, setting);
  }
  return ops;
}
