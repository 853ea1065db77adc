import { Redis } from 'ioredis';
import { ConfigError } from '../errors/index.js';
import type { CommandContext } from './command-context.js';

const SCHEDULES_SUFFIX = ':bb:schedules';
const DEFAULT_PREFIX = 'bullbeat';

/**
 * The prefixes of the bullbeat deployments in a Redis, sorted: every key `<hash tag>:bb:schedules`
 * (the hash of a deployment's schedules; see src/scheduler/keys.ts) read back into its prefix.
 * One SCAN over the keyspace, for commands a person runs (not on any hot path).
 */
export async function discoverPrefixes(redisUrl: string, timeoutMs: number): Promise<string[]> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${SCHEDULES_SUFFIX}`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const tag = key.slice(0, -SCHEDULES_SUFFIX.length);
        // `{app}` is the hash tag of prefix `app`; a prefix with its own braces is its own tag.
        found.add(/^\{[^{}]+\}$/.test(tag) ? tag.slice(1, -1) : tag);
      }
    } while (cursor !== '0');
    return [...found].sort();
  } finally {
    redis.disconnect();
  }
}

/**
 * When neither `--prefix` nor `BULLBEAT_PREFIX` is given, finds the jobs module's prefix in Redis so
 * that `schedule:*` and `dashboard` work on a project whose module names its own (`prefix: 'app'`):
 * the default `bullbeat` when it has schedules, else the only deployment in this Redis. Several
 * deployments and none the default: a `ConfigError` naming them. Sets `ctx.config.prefix` and says
 * which it took on stderr.
 */
export async function resolvePrefix(ctx: CommandContext): Promise<string> {
  const { flags, env } = ctx.sources;
  const given =
    flags.prefix !== undefined || (env.BULLBEAT_PREFIX !== undefined && env.BULLBEAT_PREFIX !== '');
  if (given) return ctx.config.prefix;
  const prefixes = await discoverPrefixes(ctx.config.redisUrl, ctx.config.redisTimeoutMs);
  if (prefixes.length === 0 || prefixes.includes(DEFAULT_PREFIX)) return ctx.config.prefix;
  if (prefixes.length > 1) {
    const shown = prefixes.length > 10 ? `${prefixes.slice(0, 10).join(', ')}, ...` : prefixes.join(', ');
    throw new ConfigError(
      'BULLBEAT_PREFIX',
      `not set, and this Redis holds several bullbeat deployments (${shown}): choose one with --prefix or BULLBEAT_PREFIX`,
    );
  }
  const [only] = prefixes as [string];
  ctx.config.prefix = only;
  ctx.note(
    `using prefix "${only}", the only bullbeat deployment in this Redis (set BULLBEAT_PREFIX or --prefix to choose)`,
  );
  return only;
}
