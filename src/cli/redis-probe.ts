import { Redis, type RedisOptions } from 'ioredis';
import { RedisUnreachableError } from '../errors/index.js';
import { type RedisTarget as ConnectionTarget, parseClusterNodes, ping } from '../store/index.js';
import { type CommonConfig, maskRedisUrl } from './cli-config.js';

/**
 * Where to probe: a `redis://` URL, or the ioredis options a jobs module's scheduler connects with
 * (on a Redis Cluster, `cluster` holds the seed nodes: the first one is probed).
 */
export type RedisTarget = string | ConnectionTarget;

/** What the CLI probes: the first seed node of `--redis-cluster-nodes` when set, else `--redis-url`. */
export function cliTarget(config: CommonConfig): RedisTarget {
  if (!config.redisClusterNodes) return config.redisUrl;
  const { nodes, redisOptions } = parseClusterNodes(config.redisClusterNodes);
  return { ...redisOptions, ...nodes[0] };
}

/** A cluster target as its first seed node. */
function firstNode(target: RedisTarget): RedisTarget {
  if (typeof target === 'string' || !target.cluster) return target;
  const { cluster, ...rest } = target;
  const node = cluster.nodes[0];
  if (typeof node === 'object') return { ...rest, host: node.host ?? '127.0.0.1', port: node.port ?? 6379 };
  if (typeof node === 'number') return { ...rest, port: node };
  return node ? { ...rest, ...parseClusterNodes(node).nodes[0] } : rest;
}

/** The address of a target, for messages: the URL (password masked) or `redis://host:port/db`. */
export function describeTarget(target: RedisTarget): string {
  if (typeof target === 'string') return maskRedisUrl(target);
  if (target.path) return `unix:${target.path}`;
  const scheme = target.tls ? 'rediss' : 'redis';
  const db = target.db ? `/${target.db}` : '';
  return `${scheme}://${target.host ?? '127.0.0.1'}:${target.port ?? 6379}${db}`;
}

function reasonOf(error: unknown, timeoutMs: number): string {
  const e = error as { code?: string; message?: string } | undefined;
  const message = e?.message ?? String(error);
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return 'host not found';
  if (e?.code === 'ETIMEDOUT' || /timed? ?out/i.test(message)) return `no answer within ${timeoutMs} ms`;
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(message)) return 'authentication failed';
  return message.split('\n')[0] ?? message;
}

/**
 * Connects to Redis and sends a PING, with no retry and no offline queue, so that an unreachable or
 * misconfigured Redis fails within `timeoutMs` with a `RedisUnreachableError` instead of hanging.
 */
export async function probeRedis(given: RedisTarget, timeoutMs: number): Promise<void> {
  const target = firstNode(given);
  const probeOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    retryStrategy: () => null,
    reconnectOnError: () => false,
  };
  const client =
    typeof target === 'string' ? new Redis(target, probeOptions) : new Redis({ ...target, ...probeOptions });
  let lastError: unknown;
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        const pong = await ping(client);
        if (pong !== 'PONG') throw new Error(`unexpected reply to PING: ${pong}`);
      })(),
      deadline,
    ]);
  } catch (error) {
    const cause = lastError ?? error;
    throw new RedisUnreachableError(describeTarget(target), reasonOf(cause, timeoutMs), { cause });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
