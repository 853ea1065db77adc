import { ScheduleOptionsError } from '../../errors/index.js';
import {
  DEFAULT_AUDIT,
  DEFAULT_CLUSTER_PARTITIONS,
  DEFAULT_COMMAND_TIMEOUT_MS,
  isCluster,
  type RedisTarget,
  redisTarget,
  targetOfCluster,
} from '../../store/index.js';
import { DEFAULT_TRIGGER_BUDGET_MS } from '../../triggers/time-budget.js';
import { resolveAlertOptions } from './alert-options.js';
import { resolveForeignOutcomesOptions } from './foreign-outcomes-options.js';
import { managerEnv } from './manager-env.js';
import { MANAGER_TUNING_KEYS, type ManagerTuning, managerTuning } from './manager-tuning.js';
import { resolveReplicaAcks } from './replica-acks-options.js';
import { resolveDeploymentExpect } from './resolve-expectations.js';
import type { ResolvedManagerOptions, SchedulerManagerOptions } from './scheduler-manager-options.js';

/**
 * The default queue of a deployment: named after its prefix (`bullbeat` keeps `bullbeat`; `alpha` is
 * `alpha`), so two deployments sharing a Redis never consume each other's jobs by default. BullMQ
 * refuses `:` in a queue name and a hash tag's braces would split its keys on a cluster: `{a:b}`
 * gives `a-b`.
 */
export function defaultQueueOf(prefix: string): string {
  return prefix.replace(/[{}]/g, '').replace(/:/g, '-') || 'bullbeat';
}

/**
 * Apply the manager's defaults once and validate them; settings it does not name come from `env`
 * (`process.env`, or the CLI's own: see `withManagerEnv`).
 */
export function resolveManagerOptions(
  o: SchedulerManagerOptions,
  env: NodeJS.ProcessEnv = managerEnv(),
): ResolvedManagerOptions {
  const fail = (field: string, reason: string): never => {
    throw new ScheduleOptionsError(undefined, field, reason);
  };
  const int = (field: string, v: number | undefined, dflt: number, min: number): number => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
      fail(field, `must be an integer >= ${min}, got ${String(v)}`);
    return v;
  };
  // BULLBEAT_PREFIX, as for the CLI: a module that names no prefix follows the deployment's setting.
  const prefix = o.prefix ?? (env.BULLBEAT_PREFIX || 'bullbeat');
  if (typeof prefix !== 'string' || prefix === '') fail('prefix', 'must be a non-empty string');
  const defaultQueue = o.defaultQueue ?? defaultQueueOf(prefix);
  if (typeof defaultQueue !== 'string' || defaultQueue === '' || defaultQueue.includes(':')) {
    fail('defaultQueue', 'must be a non-empty string without ":"');
  }
  const tuning = managerTuning(o);
  const t = tuning.values;
  const at = tuning.fieldOf;
  const role = o.role ?? 'scheduler';
  if (role !== 'scheduler' && role !== 'client')
    fail('role', `must be "scheduler" or "client", got ${String(role)}`);
  const claimLeaseMs = int(at('claimLeaseMs'), t.claimLeaseMs, 1000, 100);
  const claimAheadMs = int(at('claimAheadMs'), t.claimAheadMs, Math.min(50, Math.floor(claimLeaseMs / 4)), 0);
  if (claimAheadMs > claimLeaseMs / 4) {
    fail(
      at('claimAheadMs'),
      `must be at most a quarter of claimLeaseMs (${claimLeaseMs} ms), got ${claimAheadMs}`,
    );
  }
  // a plan that could take longer than a claim lease would let another replica take the claim over
  // and block on it in turn
  const triggerBudgetMs = int('triggerBudgetMs', o.triggerBudgetMs, DEFAULT_TRIGGER_BUDGET_MS, 1);
  if (role === 'scheduler' && triggerBudgetMs > claimLeaseMs / 4) {
    fail(
      'triggerBudgetMs',
      `must be at most a quarter of claimLeaseMs (${claimLeaseMs} ms) on a scheduler, got ${triggerBudgetMs}`,
    );
  }
  // a claim moves its ids with one ZADD/HSET of 2 arguments per id: Lua's unpack stops at 8,000
  const claimBatch = int(at('claimBatch'), t.claimBatch, 500, 1);
  if (claimBatch > 4000) fail(at('claimBatch'), `must be at most 4000, got ${claimBatch}`);
  const backpressure = t.backpressure ?? true;
  if (typeof backpressure !== 'boolean')
    fail(at('backpressure'), `must be a boolean, got ${String(backpressure)}`);
  const commitAhead = t.commitAhead ?? true;
  if (typeof commitAhead !== 'boolean')
    fail(at('commitAhead'), `must be a boolean, got ${String(commitAhead)}`);
  // REDIS_CLUSTER_NODES wins over REDIS_URL, as --redis-cluster-nodes over --redis-url
  const clusterNodes = env.REDIS_CLUSTER_NODES?.trim();
  const connection =
    o.connection ?? (clusterNodes ? { cluster: clusterNodes } : (env.REDIS_URL ?? 'redis://127.0.0.1:6379'));
  let target: RedisTarget;
  try {
    target = isCluster(connection) ? targetOfCluster(connection) : redisTarget(connection);
  } catch (err) {
    const where = o.connection === undefined && clusterNodes ? 'REDIS_CLUSTER_NODES' : 'connection';
    return fail(where, err instanceof Error ? err.message : String(err));
  }
  // BULLBEAT_PARTITIONS, like BULLBEAT_PREFIX: every process of a deployment (schedulers, workers'
  // managers, the dashboard) finds its schedules under the same count without a code change
  const envPartitions = env.BULLBEAT_PARTITIONS?.trim();
  let partitions: number;
  if (o.partitions === undefined && envPartitions) {
    partitions = Number(envPartitions);
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
      fail('BULLBEAT_PARTITIONS', `must be an integer from 1 to 1024, got ${JSON.stringify(envPartitions)}`);
    }
  } else {
    partitions = int('partitions', o.partitions, target.cluster ? DEFAULT_CLUSTER_PARTITIONS : 1, 1);
    if (partitions > 1024) fail('partitions', `must be at most 1024, got ${partitions}`);
  }
  return {
    prefix,
    connection,
    target,
    partitions,
    defaultQueue,
    logger: o.logger,
    clock: o.clock ?? Date.now,
    role,
    pauseOrphans: o.pauseOrphans !== false,
    historyLimit: int('historyLimit', o.historyLimit, 100, 1),
    auditLimit: int('auditLimit', o.auditLimit, DEFAULT_AUDIT.limit, 0),
    auditRetentionMs: int('auditRetentionMs', o.auditRetentionMs, DEFAULT_AUDIT.retentionMs, 0),
    completedRetentionMs: int('completedRetentionMs', o.completedRetentionMs, 3_600_000, 0),
    claimBatch,
    claimLeaseMs,
    claimAheadMs,
    triggerBudgetMs,
    maxSleepMs: int(at('maxSleepMs'), t.maxSleepMs, 30_000, 1),
    lateThresholdMs: int('lateThresholdMs', o.lateThresholdMs, 1000, 0),
    maxFiresPerSecond: int('maxFiresPerSecond', o.maxFiresPerSecond, 0, 0),
    keepFinishedJobsSec: int('keepFinishedJobsSec', o.keepFinishedJobsSec, 3600, 1),
    foreignOutcomes: resolveForeignOutcomesOptions(o.foreignOutcomes),
    backpressure,
    commitAhead,
    replicaAcks: resolveReplicaAcks(t.replicaAcks, process.env, at('replicaAcks')),
    commandTimeoutMs: int('commandTimeoutMs', o.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, 0),
    expect: resolveDeploymentExpect(o.expect),
    alerts: resolveAlertOptions(env),
    deprecatedTuning: tuning.deprecated,
    givenTuning: { ...t },
  };
}

/** The resolved fields the manager's tuning knobs set. */
export type ResolvedTuning = Pick<ResolvedManagerOptions, (typeof MANAGER_TUNING_KEYS)[number]>;

/**
 * The tuning of resolved options with `change` laid over the knobs given at construction, checked by
 * the same rules (`claimAheadMs` at most a quarter of `claimLeaseMs`, the scheduler's `triggerBudgetMs`
 * too): a refusal is a `ScheduleOptionsError` naming `tuning.<knob>` (or `triggerBudgetMs`). What the
 * CLI's `--tuning` / `BULLBEAT_TUNING` do to a jobs module's manager before it starts.
 */
export function retunedOptions(o: ResolvedManagerOptions, change: ManagerTuning): ResolvedTuning {
  const next = resolveManagerOptions(
    {
      prefix: o.prefix,
      connection: o.connection,
      partitions: o.partitions,
      defaultQueue: o.defaultQueue,
      role: o.role,
      triggerBudgetMs: o.triggerBudgetMs,
      tuning: { ...o.givenTuning, ...change },
    },
    {},
  );
  const picked = {} as Record<string, unknown>;
  for (const k of MANAGER_TUNING_KEYS) picked[k] = next[k];
  return picked as ResolvedTuning;
}
