import type { Redis } from 'ioredis';
import { ConfigError } from '../errors/index.js';
import { openRedis, type RedisTarget, redisTarget, scanKeys } from '../store/index.js';
import { cliConnection } from './cli-config.js';
import type { CommandContext } from './command-context.js';

const SCHEDULES_SUFFIX = ':bb:schedules';
/** A partitioned deployment's own key (see `Keys.partitionCount`); its partitions' tags are `{<prefix>:<i>[.<n>]}`. */
const PARTITIONS_SUFFIX = ':bb:partitions';
const DEFAULT_PREFIX = 'bullbeat';

/**
 * The prefixes of the bullbeat deployments in a Redis, sorted: every key `<hash tag>:bb:schedules`
 * (the hash of a deployment's schedules; see src/scheduler/keys.ts) read back into its prefix.
 * One SCAN over the keyspace, for commands a person runs (not on any hot path).
 */
export async function discoverPrefixes(target: string | RedisTarget, timeoutMs: number): Promise<string[]> {
  const t = typeof target === 'string' ? redisTarget(target) : target;
  const redis = openRedis(t, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    // on a cluster each master holds its own slots: scan every one
    const nodes: Redis[] = t.cluster
      ? (redis as unknown as { nodes(role: 'master'): Redis[] }).nodes('master')
      : [redis];
    const found = new Set<string>();
    const partitioned = new Set<string>();
    const tagOf = (key: string, suffix: string) => {
      const tag = key.slice(0, -suffix.length);
      // `{app}` is the hash tag of prefix `app`; a prefix with its own braces is its own tag.
      return /^\{[^{}]+\}$/.test(tag) ? tag.slice(1, -1) : tag;
    };
    for (const node of nodes) {
      for (const suffix of [SCHEDULES_SUFFIX, PARTITIONS_SUFFIX]) {
        for (const key of await scanKeys(node, `*${suffix}`)) {
          (suffix === SCHEDULES_SUFFIX ? found : partitioned).add(tagOf(key, suffix));
        }
      }
    }
    // a partition's tag is `<prefix>:<i>[.<n>]` of a deployment recorded as partitioned
    for (const tag of found) {
      const m = /^(.*):\d+(?:\.\d+)?$/.exec(tag);
      if (m && partitioned.has(m[1]!)) found.delete(tag);
    }
    for (const p of partitioned) found.add(p);
    return [...found].sort();
  } finally {
    redis.disconnect();
  }
}

/** Where the prefix was named (`--prefix`, `BULLBEAT_PREFIX`), or undefined when it was not. */
function prefixSetting(ctx: CommandContext): '--prefix' | 'BULLBEAT_PREFIX' | undefined {
  const { flags, env } = ctx.sources;
  if (flags.prefix !== undefined) return '--prefix';
  return env.BULLBEAT_PREFIX !== undefined && env.BULLBEAT_PREFIX !== '' ? 'BULLBEAT_PREFIX' : undefined;
}

/**
 * For a command that works on an existing deployment, after `resolvePrefix`: a `--prefix` typed for
 * this command under which this Redis holds nothing, while it holds other deployments, is a
 * `ConfigError` (exit 2) listing them: a typo, most likely. `BULLBEAT_PREFIX` is a deployment's
 * setting, so a deployment with nothing stored yet is not refused. With no deployment at all in this
 * Redis, there is nothing to list.
 */
export async function checkPrefixFound(ctx: CommandContext, found: () => Promise<boolean>): Promise<void> {
  const setting = prefixSetting(ctx);
  if (setting !== '--prefix' || (await found())) return;
  const c = cliConnection(ctx.config);
  const prefixes = await discoverPrefixes(
    typeof c === 'string' ? c : redisTarget(c),
    ctx.config.redisTimeoutMs,
  );
  if (prefixes.length === 0) return;
  const shown = prefixes.length > 20 ? `${prefixes.slice(0, 20).join(', ')}, ...` : prefixes.join(', ');
  throw new ConfigError(
    setting,
    `no bullbeat deployment "${ctx.config.prefix}" in this Redis, which holds: ${shown} (name one of them)`,
  );
}

/**
 * The CLI's one rule for which deployment (key prefix) a command works on, first that applies:
 * 1. `--prefix`, 2. `BULLBEAT_PREFIX`, 3. the jobs module's `prefix` (commands that load one),
 * 4. the only deployment found in this Redis, 5. `bullbeat` when there is none. Several found and
 * none named: a `ConfigError` (exit 2) listing them. Commands without a jobs module call this; it
 * sets `ctx.config.prefix` and, when Redis chose, says so on stderr.
 */
export async function resolvePrefix(ctx: CommandContext): Promise<string> {
  if (prefixSetting(ctx) !== undefined) return ctx.config.prefix;
  const c = cliConnection(ctx.config);
  const prefixes = await discoverPrefixes(
    typeof c === 'string' ? c : redisTarget(c),
    ctx.config.redisTimeoutMs,
  );
  if (prefixes.length === 0) return ctx.config.prefix;
  if (prefixes.length > 1) {
    const shown = prefixes.length > 20 ? `${prefixes.slice(0, 20).join(', ')}, ...` : prefixes.join(', ');
    throw new ConfigError(
      '--prefix',
      `not given, and this Redis holds several bullbeat deployments (${shown}): name one with --prefix or BULLBEAT_PREFIX`,
    );
  }
  const [only] = prefixes as [string];
  ctx.config.prefix = only;
  if (only !== DEFAULT_PREFIX) {
    ctx.note(
      `using prefix "${only}", the only bullbeat deployment in this Redis (set BULLBEAT_PREFIX or --prefix to choose)`,
    );
  }
  return only;
}
