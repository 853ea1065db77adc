import { z } from 'zod';
import { ConfigError } from '../errors/index.js';
import { type ClusterConnection, parseClusterNodes } from '../store/index.js';

/** Where the raw values of the settings come from: the flags parsed by commander and the environment. */
export interface ConfigSources {
  flags: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** Whether stdout is a terminal (decides the default log format). */
  stdoutIsTTY: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The settings every command that talks to Redis shares, resolved with their defaults. */
export interface CommonConfig {
  /** `--redis-url` / `REDIS_URL`; default `redis://127.0.0.1:6379`. */
  redisUrl: string;
  /** `--redis-cluster-nodes` / `REDIS_CLUSTER_NODES`: a Redis Cluster's seed nodes (`host:port,...`); wins over the URL. */
  redisClusterNodes?: string | undefined;
  /** `--prefix` / `BULLBEAT_PREFIX`; default `bullbeat`. Its keys share the hash tag `{prefix}`. */
  prefix: string;
  /** `--log-level` / `LOG_LEVEL`; default `info`. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** `--log-format` / `LOG_FORMAT`; default `pretty` when stdout is a terminal, `json` otherwise. */
  logFormat: 'json' | 'pretty';
  /** `--redis-timeout-ms` / `BULLBEAT_REDIS_TIMEOUT_MS`: how long to wait for Redis to answer; default 3000. */
  redisTimeoutMs: number;
}

/** The dashboard's settings (`bullbeat dashboard` and `bullbeat dev`). */
export interface DashboardConfig {
  /** `--port` / `PORT`; default 3000. 0 picks a free port. */
  port: number;
  /** `--host` / `HOST`; default `0.0.0.0`, or `127.0.0.1` when open (no credentials). */
  host?: string | undefined;
  /** `--open` / `BULLBEAT_DASHBOARD_OPEN=1`: run without credentials (then bound to 127.0.0.1). Default false. */
  open: boolean;
}

/** The worker's settings (`bullbeat worker` and `bullbeat dev`). */
export interface WorkerConfig {
  /** `--queues a,b` / `BULLBEAT_QUEUES`; default: every queue with a schedule whose job name has a handler in the jobs module. */
  queues?: string[] | undefined;
  /** `--concurrency` / `BULLBEAT_CONCURRENCY`: jobs run at once per queue; default: the worker's (10). */
  concurrency?: number | undefined;
  /** `--lease-ttl-ms` / `BULLBEAT_LEASE_TTL_MS`: a dead worker's run slots free this long after; default 30000. */
  leaseTtlMs?: number | undefined;
  /** `--lock-duration-ms` / `BULLBEAT_LOCK_DURATION_MS`: BullMQ's job lock; a dead worker's jobs come back after it; default 30000. */
  lockDurationMs?: number | undefined;
  /** `--stalled-interval-ms` / `BULLBEAT_STALLED_INTERVAL_MS`: how often BullMQ looks for stalled jobs; default 30000. */
  stalledIntervalMs?: number | undefined;
  /** `--exclusion-wait-ms` / `BULLBEAT_EXCLUSION_WAIT_MS`: wait for a busy exclusion group when the schedule does not say; default 60000. */
  exclusionWaitMs?: number | undefined;
  /** `--rate-max` / `BULLBEAT_RATE_MAX`: BullMQ's queue limiter, jobs per `rateDurationMs`; default none. */
  rateMax?: number | undefined;
  /** `--rate-duration-ms` / `BULLBEAT_RATE_DURATION_MS`: the limiter's window; default 1000. */
  rateDurationMs?: number | undefined;
}

interface Setting {
  key: string;
  flag: string;
  flagKey: string;
  env: string;
}

const setting = (key: string, flag: string, env: string): Setting => ({
  key,
  flag,
  env,
  flagKey: flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
});

/** Picks each setting's raw value (the flag wins over the environment) and remembers where it came from. */
function gather(settings: readonly Setting[], sources: ConfigSources) {
  const raw: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  for (const s of settings) {
    const flagValue = sources.flags[s.flagKey];
    if (flagValue !== undefined) {
      raw[s.key] = flagValue;
      origin[s.key] = s.flag;
    } else if (sources.env[s.env] !== undefined && sources.env[s.env] !== '') {
      raw[s.key] = sources.env[s.env];
      origin[s.key] = s.env;
    }
  }
  return { raw, origin };
}

function parseWith<T>(schema: z.ZodType<T>, settings: readonly Setting[], sources: ConfigSources): T {
  const { raw, origin } = gather(settings, sources);
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? '');
  const label = origin[key] ?? settings.find((s) => s.key === key)?.flag ?? key;
  const value = raw[key];
  throw new ConfigError(
    label,
    `${issue?.message ?? 'invalid'}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`,
  );
}

const int = (min: number, max: number, what: string) =>
  z.coerce
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .min(min, { error: `expected ${what}` })
    .max(max, { error: `expected ${what}` });

const flagBool = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const t = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off'].includes(t)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected 1/true/yes or 0/false/no' });
  return z.NEVER;
});

const redisUrl = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
    } catch {
      return false;
    }
  },
  { error: 'expected a URL like redis://host:6379 or rediss://user:password@host:6380/0' },
);

const COMMON: readonly Setting[] = [
  setting('redisUrl', '--redis-url', 'REDIS_URL'),
  setting('redisClusterNodes', '--redis-cluster-nodes', 'REDIS_CLUSTER_NODES'),
  setting('prefix', '--prefix', 'BULLBEAT_PREFIX'),
  setting('logLevel', '--log-level', 'LOG_LEVEL'),
  setting('logFormat', '--log-format', 'LOG_FORMAT'),
  setting('redisTimeoutMs', '--redis-timeout-ms', 'BULLBEAT_REDIS_TIMEOUT_MS'),
];

/** Resolves and validates the common settings once; throws `ConfigError` naming the flag or variable. */
export function resolveCommonConfig(sources: ConfigSources): CommonConfig {
  const schema = z.object({
    redisUrl: redisUrl.default('redis://127.0.0.1:6379'),
    redisClusterNodes: z
      .string()
      .superRefine((v, c) => {
        try {
          parseClusterNodes(v, 'nodes');
        } catch (err) {
          c.addIssue({ code: 'custom', message: (err as Error).message.replace(/^nodes: /, '') });
        }
      })
      .optional(),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.:{}-]{1,64}$/, {
        error: 'expected 1-64 characters from A-Z a-z 0-9 _ . - : { }',
      })
      .default('bullbeat'),
    logLevel: z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }))
      .default('info'),
    logFormat: z
      .enum(['json', 'pretty'], { error: 'expected json or pretty' })
      .default(sources.stdoutIsTTY ? 'pretty' : 'json'),
    redisTimeoutMs: int(100, 600_000, 'a whole number of milliseconds from 100 to 600000').default(3000),
  });
  return parseWith(schema, COMMON, sources);
}

const DASHBOARD: readonly Setting[] = [
  setting('port', '--port', 'PORT'),
  setting('host', '--host', 'HOST'),
  setting('open', '--open', 'BULLBEAT_DASHBOARD_OPEN'),
];

/** Resolves and validates the dashboard's settings once. */
export function resolveDashboardConfig(sources: ConfigSources): DashboardConfig {
  const schema = z.object({
    port: int(0, 65535, 'a port number from 0 to 65535').default(3000),
    host: z.string().min(1).optional(),
    open: flagBool.default(false),
  });
  return parseWith(schema, DASHBOARD, sources);
}

const WORKER: readonly Setting[] = [
  setting('queues', '--queues', 'BULLBEAT_QUEUES'),
  setting('concurrency', '--concurrency', 'BULLBEAT_CONCURRENCY'),
  setting('leaseTtlMs', '--lease-ttl-ms', 'BULLBEAT_LEASE_TTL_MS'),
  setting('lockDurationMs', '--lock-duration-ms', 'BULLBEAT_LOCK_DURATION_MS'),
  setting('stalledIntervalMs', '--stalled-interval-ms', 'BULLBEAT_STALLED_INTERVAL_MS'),
  setting('exclusionWaitMs', '--exclusion-wait-ms', 'BULLBEAT_EXCLUSION_WAIT_MS'),
  setting('rateMax', '--rate-max', 'BULLBEAT_RATE_MAX'),
  setting('rateDurationMs', '--rate-duration-ms', 'BULLBEAT_RATE_DURATION_MS'),
];

const ms = (min: number) => int(min, 86_400_000, `a whole number of milliseconds from ${min} to 86400000`);

/** Resolves and validates the worker's settings once. */
export function resolveWorkerConfig(sources: ConfigSources): WorkerConfig {
  const schema = z.object({
    queues: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((q) => q.trim())
          .filter((q) => q !== ''),
      )
      .refine((qs) => qs.length > 0, { error: 'expected a comma-separated list of queue names' })
      .optional(),
    concurrency: int(1, 10_000, 'a whole number from 1 to 10000').optional(),
    leaseTtlMs: ms(100).optional(),
    lockDurationMs: ms(100).optional(),
    stalledIntervalMs: ms(100).optional(),
    exclusionWaitMs: ms(0).optional(),
    rateMax: int(1, 1_000_000, 'a whole number from 1 to 1000000').optional(),
    rateDurationMs: ms(1).optional(),
  });
  return parseWith(schema, WORKER, sources);
}

/** The operations settings of the long-running commands (`scheduler`, `worker`, `dev`). */
export interface OpsConfig {
  /** `--metrics-port` / `BULLBEAT_METRICS_PORT`: serve `/metrics`, `/healthz`, `/readyz` there; default: no server. */
  metricsPort?: number | undefined;
  /** `--metrics-host` / `BULLBEAT_METRICS_HOST`: the metrics server's address; default `0.0.0.0`. */
  metricsHost?: string | undefined;
  /** `--heartbeat-ms` / `BULLBEAT_HEARTBEAT_MS`: fleet heartbeat; dead after 3 missed; default 5000. */
  heartbeatMs?: number | undefined;
  /** `--metrics-schedules a,b` / `BULLBEAT_METRICS_SCHEDULES`: schedule ids with a label of their own; default none. */
  scheduleLabels?: string[] | undefined;
}

const OPS: readonly Setting[] = [
  setting('metricsPort', '--metrics-port', 'BULLBEAT_METRICS_PORT'),
  setting('metricsHost', '--metrics-host', 'BULLBEAT_METRICS_HOST'),
  setting('heartbeatMs', '--heartbeat-ms', 'BULLBEAT_HEARTBEAT_MS'),
  setting('scheduleLabels', '--metrics-schedules', 'BULLBEAT_METRICS_SCHEDULES'),
];

/** Resolves and validates the operations settings once. */
export function resolveOpsConfig(sources: ConfigSources): OpsConfig {
  const schema = z.object({
    metricsPort: int(0, 65535, 'a port number from 0 to 65535').optional(),
    metricsHost: z.string().min(1).optional(),
    heartbeatMs: int(100, 600_000, 'a whole number of milliseconds from 100 to 600000').optional(),
    scheduleLabels: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((q) => q.trim())
          .filter((q) => q !== ''),
      )
      .refine((ids) => ids.length <= 100, { error: 'at most 100 schedule ids' })
      .optional(),
  });
  return parseWith(schema, OPS, sources);
}

/** The Redis URL with any password replaced by `***`, for messages and logs. */
export function maskRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** What the CLI's managers connect to: the cluster when `--redis-cluster-nodes` / `REDIS_CLUSTER_NODES` is set, else the URL. */
export function cliConnection(config: CommonConfig): string | ClusterConnection {
  return config.redisClusterNodes ? { cluster: config.redisClusterNodes } : config.redisUrl;
}
