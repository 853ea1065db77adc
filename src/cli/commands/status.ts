import type { Command } from 'commander';
import { ConfigError } from '../../errors/index.js';
import { describeVersions, FleetReader } from '../../ops/index.js';
import { internalsOf, SchedulerManager } from '../../scheduler/index.js';
import { checkDeployment } from '../../store/index.js';
import { cliConnection } from '../cli-config.js';
import type { CliIO } from '../cli-io.js';
import { commandContext } from '../command-context.js';
import { resolvePrefix } from '../discover-prefix.js';
import { ExitCode } from '../exit-codes.js';
import { formatTable, shortInstant } from '../format-table.js';
import { numericFlag } from '../numeric-flag.js';
import { cliTarget, probeRedis } from '../redis-probe.js';
import { shown } from '../terminal-text.js';

/**
 * `bullbeat status [--json] [--late-threshold-ms N]`: the fleet (scheduler replicas and workers,
 * alive or dead within the hour) and the counts of late, failing and errored schedules. Exits 5
 * when no scheduler replica is alive or schedules are late, so that it can serve as a probe. Warns
 * (a `WARNING:` line, `warnings` in JSON; the exit code unchanged) when live processes run different
 * bullbeat versions.
 */
export function statusCommand(io: CliIO) {
  return async (options: { json?: boolean; lateThresholdMs?: string }, command: Command): Promise<number> => {
    const ctx = commandContext(io, command, 'cli');
    const lateThresholdMs = numericFlag('--late-threshold-ms', options.lateThresholdMs) ?? 1000;
    if (!Number.isInteger(lateThresholdMs) || lateThresholdMs < 0) {
      throw new ConfigError(
        '--late-threshold-ms',
        `expected a whole number of milliseconds (got "${options.lateThresholdMs}")`,
      );
    }
    await probeRedis(cliTarget(ctx.config), ctx.config.redisTimeoutMs);
    await resolvePrefix(ctx);
    const manager = new SchedulerManager({
      role: 'client',
      prefix: ctx.config.prefix,
      connection: cliConnection(ctx.config),
      logger: ctx.logger,
    });
    try {
      await checkDeployment(internalsOf(manager).redis, internalsOf(manager).keys, false);
      const [{ ScheduleIndex }, { ScheduleReader, DeploymentHealthReader }] = await Promise.all([
        import('../../store/index.js'),
        import('../../../dashboard/internal.js'),
      ]);
      const index = new ScheduleIndex(internalsOf(manager).redis, internalsOf(manager).keys);
      const reader = new ScheduleReader(
        internalsOf(manager).redis,
        internalsOf(manager).keys,
        internalsOf(manager).options.historyLimit,
      );
      const health = await new DeploymentHealthReader(
        internalsOf(manager).redis,
        internalsOf(manager).keys,
        index,
        reader,
        {
          lateThresholdMs,
          cacheMs: 0,
        },
      ).read();
      const fleet = await new FleetReader(internalsOf(manager).redis, internalsOf(manager).prefix).snapshot();
      const problems = [
        ...(fleet.replicas === 0 ? ['no scheduler replica alive'] : []),
        ...(health.late > 0 ? [`${health.late} schedule(s) late`] : []),
      ];
      // a mix of versions is a warning, not a failed probe: a rolling upgrade runs two for a while
      const warnings = fleet.mixedVersions
        ? [`live processes run different bullbeat versions: ${describeVersions(fleet.versions)}`]
        : [];
      const code = problems.length > 0 ? ExitCode.unhealthy : ExitCode.ok;
      if (options.json) {
        io.stdout(
          `${JSON.stringify({ ok: code === ExitCode.ok, problems, warnings, ...fleet, health }, null, 2)}\n`,
        );
        return code;
      }
      const rows = fleet.members.map((m) => [
        m.role,
        m.alive ? 'alive' : 'dead',
        m.host,
        String(m.pid),
        m.version,
        shortInstant(m.lastBeat),
        m.role !== 'worker'
          ? ''
          : m.handles
            ? // each queue with the job names this worker handles there
              Object.entries(m.handles)
                .map(([q, names]) => `${q} [${names.join(',')}]`)
                .join(' ')
            : `${m.queues.join(',')} [${m.handlers.join(',')}]`,
      ]);
      // the table is several lines whose cells are already shown one-line (`formatTable`); every
      // other line is one line of text that may carry stored names
      const table =
        rows.length > 0
          ? formatTable(['role', 'state', 'host', 'pid', 'version', 'last beat', 'queues [handlers]'], rows)
          : '(no process registered)';
      const out = [
        shown(
          `prefix "${ctx.config.prefix}": ${fleet.replicas} scheduler replica(s) alive, ${fleet.workers} worker(s) alive`,
        ),
        table,
        ...[
          `schedules: ${health.late} late, ${health.failing} failing, ${health.errored} errored`,
          ...(health.lateIds.length ? [`  late: ${health.lateIds.join(', ')}`] : []),
          ...(health.failingIds.length ? [`  failing: ${health.failingIds.join(', ')}`] : []),
          ...(health.erroredIds.length ? [`  errored: ${health.erroredIds.join(', ')}`] : []),
          ...warnings.map((w) => `WARNING: ${w}`),
          problems.length > 0 ? `NOT OK: ${problems.join('; ')}` : 'OK',
        ].map(shown),
      ];
      io.stdout(`${out.join('\n')}\n`);
      return code;
    } finally {
      await manager.close();
    }
  };
}
