import type { Command } from 'commander';
import type { Logger } from 'pino';
import { ConfigError } from '../errors/config-error.js';
import type { SchedulerManager } from '../scheduler/scheduler-manager.js';
import { type CommonConfig, type ConfigSources, resolveCommonConfig } from './cli-config.js';
import type { CliIO } from './cli-io.js';
import { createLogger } from './create-logger.js';
import { type LoadedJobsModule, loadJobsModule } from './load-jobs-module.js';
import { probeRedis } from './redis-probe.js';

/** What every command that talks to Redis starts from: its validated settings and its logger. */
export interface CommandContext {
  sources: ConfigSources;
  config: CommonConfig;
  logger: Logger;
}

/** Validates the common settings once, creates the logger, and hands the settings on to code that reads the environment. */
export function commandContext(io: CliIO, command: Command, role: string): CommandContext {
  const sources: ConfigSources = {
    flags: command.optsWithGlobals(),
    env: io.env,
    stdoutIsTTY: io.stdoutIsTTY,
  };
  const config = resolveCommonConfig(sources);
  // A jobs module's `new SchedulerManager()` reads REDIS_URL and LOG_LEVEL: give it the resolved values.
  io.env.REDIS_URL = config.redisUrl;
  io.env.LOG_LEVEL = config.logLevel;
  return { sources, config, logger: createLogger(config, role, io.env) };
}

/**
 * Loads the jobs module and checks it against the settings: the module's manager must use the
 * prefix asked for (a mismatch would split the deployment in two), and it logs through the CLI's
 * logger unless the module gave it one of its own.
 */
export async function loadScheduler(
  ctx: CommandContext,
  specifier: string,
  cwd: string,
): Promise<LoadedJobsModule> {
  const loaded = await loadJobsModule(specifier, cwd);
  const { scheduler } = loaded;
  const explicitPrefix = ctx.sources.flags.prefix ?? ctx.sources.env.BULLBEAT_PREFIX;
  if (explicitPrefix !== undefined && explicitPrefix !== '' && scheduler.prefix !== ctx.config.prefix) {
    const setting = ctx.sources.flags.prefix !== undefined ? '--prefix' : 'BULLBEAT_PREFIX';
    throw new ConfigError(
      setting,
      `"${ctx.config.prefix}", but the jobs module's SchedulerManager uses prefix "${scheduler.prefix}" ` +
        '(pass { prefix: process.env.BULLBEAT_PREFIX } to new SchedulerManager(), or drop the setting)',
    );
  }
  adoptLogger(scheduler, ctx.logger);
  return loaded;
}

/** Replaces the manager's default logger by the CLI's (JSON or pretty, same level); a logger the module passed is kept. */
function adoptLogger(scheduler: SchedulerManager, logger: Logger): void {
  if (scheduler.options?.logger !== undefined) return;
  try {
    (scheduler as { logger: Logger }).logger = logger;
  } catch {
    // A frozen or accessor-only logger: keep the module's.
  }
}

/** Fails fast (exit 3) when the scheduler's Redis does not answer. */
export async function probeSchedulerRedis(ctx: CommandContext, scheduler: SchedulerManager): Promise<void> {
  await probeRedis(scheduler.connectionOptions(), ctx.config.redisTimeoutMs);
}
