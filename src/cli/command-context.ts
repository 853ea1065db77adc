import type { Command } from 'commander';
import type { Logger } from 'pino';
import { ConfigError } from '../errors/index.js';
import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { type CommonConfig, type ConfigSources, resolveCommonConfig } from './cli-config.js';
import type { CliIO } from './cli-io.js';
import { createLogger } from './create-logger.js';
import { type HeldLogger, heldLogger } from './held-logger.js';
import { type LoadedJobsModule, loadJobsModule } from './load-jobs-module.js';
import { probeRedis } from './redis-probe.js';
import { shown } from './terminal-text.js';

/** What every command that talks to Redis starts from: its validated settings and its logger. */
export interface CommandContext {
  sources: ConfigSources;
  config: CommonConfig;
  logger: Logger;
  /** A one-line note for the person at the terminal, on stderr (`bullbeat: ...`), apart from the logs on stdout. */
  note: (line: string) => void;
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
  if (config.redisClusterNodes) io.env.REDIS_CLUSTER_NODES = config.redisClusterNodes;
  io.env.LOG_LEVEL = config.logLevel;
  return {
    sources,
    config,
    logger: createLogger(config, role, io.env),
    note: (line) => io.stderr(`bullbeat: ${shown(line)}\n`),
  };
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
  if (
    explicitPrefix !== undefined &&
    explicitPrefix !== '' &&
    internalsOf(scheduler).prefix !== ctx.config.prefix
  ) {
    const setting = ctx.sources.flags.prefix !== undefined ? '--prefix' : 'BULLBEAT_PREFIX';
    throw new ConfigError(
      setting,
      `"${ctx.config.prefix}", but the jobs module's SchedulerManager uses prefix "${internalsOf(scheduler).prefix}" ` +
        '(pass { prefix: process.env.BULLBEAT_PREFIX } to new SchedulerManager(), or drop the setting)',
    );
  }
  // Until Redis is known to answer, the manager's lines are held (see heldLogger).
  const held = heldLogger(ctx.config.logLevel);
  if (adoptLogger(scheduler, held.logger)) heldLoggers.set(scheduler, held);
  return loaded;
}

const heldLoggers = new WeakMap<SchedulerManager, HeldLogger>();

/** Replaces the manager's default logger by the CLI's (JSON or pretty, same level); a logger the module passed is kept. */
function adoptLogger(scheduler: SchedulerManager, logger: Logger): boolean {
  if (internalsOf(scheduler).options?.logger !== undefined) return false;
  try {
    (scheduler as { logger: Logger }).logger = logger;
    return true;
  } catch {
    // A frozen or accessor-only logger: keep the module's.
    return false;
  }
}

/** Fails fast (exit 3) when the scheduler's Redis does not answer. */
export async function probeSchedulerRedis(ctx: CommandContext, scheduler: SchedulerManager): Promise<void> {
  const held = heldLoggers.get(scheduler);
  heldLoggers.delete(scheduler);
  try {
    await probeRedis(internalsOf(scheduler).connectionOptions(), ctx.config.redisTimeoutMs);
  } catch (error) {
    // The one-line error says it all, unless asked for more.
    if (ctx.config.logLevel === 'debug' || ctx.config.logLevel === 'trace') held?.release(ctx.logger);
    held?.drop();
    throw error;
  }
  if (held) {
    adoptLogger(scheduler, ctx.logger);
    held.release(ctx.logger);
  }
}
