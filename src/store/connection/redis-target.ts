import { Cluster, type ClusterNode, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { parseURL } from 'ioredis/built/utils/index.js';
import { BullbeatError } from '../../errors/bullbeat-error.js';
import { BullCluster } from './bull-cluster.js';

/**
 * A Redis Cluster to connect to: its seed nodes (`host:port` or `redis://[user:pass@]host:port`,
 * `rediss://` for TLS; a list or one comma-separated string), the options of each node connection,
 * and ioredis's cluster options.
 */
export interface ClusterConnection {
  cluster: string | readonly (string | { host: string; port: number })[];
  /** Options of each node's connection (password, username, tls...). A URL's credentials and `rediss:` are added. */
  redisOptions?: RedisOptions;
  /** ioredis `ClusterOptions` (without `redisOptions`). */
  clusterOptions?: Omit<ClusterOptions, 'redisOptions'>;
}

/**
 * What every client of a deployment is made from: ioredis options, with `cluster` set when the
 * deployment is a Redis Cluster (`openRedis` then makes an ioredis `Cluster`).
 */
export type RedisTarget = RedisOptions & { cluster?: ClusterSpec };

/** A cluster's seed nodes and ioredis cluster options. */
export interface ClusterSpec {
  nodes: ClusterNode[];
  options: Omit<ClusterOptions, 'redisOptions'>;
}

/** True when `c` is an ioredis `Cluster` instance. */
export function isCluster(c: unknown): c is Cluster {
  return (
    c instanceof Cluster ||
    (typeof c === 'object' && c !== null && (c as { isCluster?: unknown }).isCluster === true)
  );
}

/** True when `c` is a `{ cluster: nodes }` connection. */
export function isClusterConnection(c: unknown): c is ClusterConnection {
  return typeof c === 'object' && c !== null && !isCluster(c) && 'cluster' in c;
}

/** ioredis options from a URL: `rediss:` means TLS; IPv6 hosts in brackets and query options as ioredis reads them. */
export function optionsFromUrl(url: string): RedisOptions {
  const parsed = parseURL(url) as RedisOptions & { db?: number | string; port?: number | string };
  const { db, port, ...rest } = parsed;
  return {
    ...rest,
    ...(port !== undefined && { port: Number(port) }),
    ...(db !== undefined && { db: Number(db) }),
    ...(url.startsWith('rediss:') && { tls: {} }),
  };
}

/**
 * Seed nodes from `REDIS_CLUSTER_NODES` (or `--redis-cluster-nodes`): `host:port,host:port,...`, each
 * optionally a `redis://` / `rediss://` URL carrying a password (the first one's credentials and TLS
 * apply to every node). `setting` names the setting in errors.
 */
export function parseClusterNodes(
  text: string,
  setting = 'REDIS_CLUSTER_NODES',
): { nodes: { host: string; port: number }[]; redisOptions: RedisOptions } {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) {
    throw new BullbeatError(`${setting}: expected host:port[,host:port...], got "${text}"`);
  }
  let redisOptions: RedisOptions = {};
  const nodes = parts.map((part, i) => {
    const url = /^[a-z]+:\/\//i.test(part) ? part : `redis://${part}`;
    if (!/^rediss?:\/\//i.test(url)) {
      throw new BullbeatError(`${setting}: node ${i + 1} ("${part}") must be host:port or a redis:// URL`);
    }
    let o: RedisOptions;
    try {
      o = optionsFromUrl(url);
    } catch {
      throw new BullbeatError(`${setting}: node ${i + 1} ("${part}") must be host:port or a redis:// URL`);
    }
    const port = Number(o.port);
    if (!o.host || !Number.isInteger(port) || port <= 0 || port > 65535) {
      throw new BullbeatError(
        `${setting}: node ${i + 1} ("${part}") must be host:port (a port from 1 to 65535)`,
      );
    }
    if (i === 0) {
      const { host: _h, port: _p, ...rest } = o;
      redisOptions = rest;
    }
    return { host: o.host, port };
  });
  return { nodes, redisOptions };
}

/** The target of a connection given as a URL, ioredis options or a `{ cluster }` connection (a `Cluster` instance: see `targetOfCluster`). */
export function redisTarget(c: string | RedisOptions | ClusterConnection): RedisTarget {
  if (typeof c === 'string') return { ...optionsFromUrl(c), maxRetriesPerRequest: null };
  if (isClusterConnection(c)) {
    const seeds =
      typeof c.cluster === 'string'
        ? parseClusterNodes(c.cluster, 'connection.cluster')
        : parseClusterNodes(
            c.cluster.map((n) => (typeof n === 'string' ? n : `${n.host}:${n.port}`)).join(','),
            'connection.cluster',
          );
    return {
      ...seeds.redisOptions,
      ...c.redisOptions,
      maxRetriesPerRequest: null,
      cluster: { nodes: seeds.nodes, options: c.clusterOptions ?? {} },
    };
  }
  return { maxRetriesPerRequest: null, ...c };
}

/** The target of an ioredis `Cluster` the caller made: its seed nodes and options (new clients are made like it). */
export function targetOfCluster(cluster: Cluster): RedisTarget {
  const startupNodes = (cluster as unknown as { startupNodes: ClusterNode[] }).startupNodes;
  const { redisOptions, ...options } = cluster.options;
  return {
    ...redisOptions,
    maxRetriesPerRequest: null,
    cluster: { nodes: [...startupNodes], options },
  };
}

/**
 * A new client of the target: an ioredis `Redis`, or a `Cluster` on a cluster target. A `Cluster` has
 * the commands the store uses (scripts included: `defineCommand` defines them on every node it meets)
 * and is typed as a `Redis` here so that the rest of the code takes either.
 */
export function openRedis(target: RedisTarget, extra: RedisOptions = {}): Redis {
  const c = openCluster(target, extra);
  if (!c) return new Redis({ ...target, ...extra });
  // A pipeline may mix partitions and queues (slots on different masters): on a cluster each of its
  // commands goes on its own (all sent at once), with the results in a pipeline's shape.
  (c as unknown as { pipeline: () => unknown }).pipeline = () => spreadPipeline(c);
  return c as unknown as Redis;
}

function openCluster(
  target: RedisTarget,
  extra: RedisOptions,
  make: (nodes: ClusterNode[], options: ClusterOptions) => Cluster = (n, o) => new Cluster(n, o),
): Cluster | undefined {
  const { cluster, ...options } = target;
  if (!cluster) return undefined;
  const { lazyConnect, ...nodeOptions } = { ...options, ...extra };
  return make(cluster.nodes, {
    // a failover moves slots: follow them rather than failing the command
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 200,
    retryDelayOnClusterDown: 200,
    ...cluster.options,
    ...(lazyConnect !== undefined && { lazyConnect }),
    redisOptions: nodeOptions,
  });
}

/** A stand-in for `pipeline()` on a cluster: the same calls and `exec()` result, each command on its own. */
function spreadPipeline(cluster: Cluster): unknown {
  const calls: [string, unknown[]][] = [];
  const pipe: Record<string | symbol, unknown> = new Proxy(
    {},
    {
      get(_target, name) {
        if (name === 'then') return undefined;
        if (name === 'length') return calls.length;
        if (name === 'exec') {
          return () =>
            Promise.all(
              calls.map(([command, args]) =>
                (cluster as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[command]!(
                  ...args,
                ).then(
                  (r) => [null, r],
                  (e: unknown) => [e, null],
                ),
              ),
            );
        }
        return (...args: unknown[]) => {
          calls.push([String(name), args]);
          return pipe;
        };
      },
    },
  );
  return pipe;
}

/**
 * What a BullMQ `Queue`/`Worker`/`QueueEvents` connects with: the options on a single Redis (BullMQ
 * makes its own client), a new `Cluster` on a cluster (BullMQ cannot make one from options; the
 * caller closes it after the BullMQ object), a `BullCluster` whose worker survives a failover.
 */
export function bullConnection(target: RedisTarget): RedisOptions | Cluster {
  return openCluster(target, {}, (n, o) => new BullCluster(n, o)) ?? target;
}

/**
 * BullMQ's key prefix for a queue: `undefined` (BullMQ's default `bull`) on a single Redis; on a
 * cluster `{bull:<queue>}`, a hash tag per queue, so each queue's keys share one slot (BullMQ's
 * scripts are multi-key) and different queues spread over the masters. A plain BullMQ `Worker` of
 * the queue passes the same `prefix`.
 */
export function queuePrefixFor(target: RedisTarget, queue: string): string | undefined {
  return target.cluster ? `{bull:${queue}}` : undefined;
}
