// What the jobs fixtures' handlers record: each run appends `<scheduleId>:<fireAt>:<pid>` to the Redis
// list `{prefix}:bb:test:ran`, on the handlers' own client, as a user's code makes one: the Redis the
// process was given (REDIS_CLUSTER_NODES, else REDIS_URL; never a default port), connected at the first
// run (a process that never runs one never connects).
import { Cluster, Redis } from 'ioredis';

const nodes = process.env.REDIS_CLUSTER_NODES;
const url = process.env.REDIS_URL;
const redis = nodes
  ? new Cluster(
      nodes.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })),
      { lazyConnect: true },
    )
  : url
    ? new Redis(url, { lazyConnect: true })
    : undefined;
const ranKey = `{${process.env.BULLBEAT_PREFIX ?? 'bullbeat'}}:bb:test:ran`;

/** Record one run of `ctx`'s occurrence. */
export async function recordRun(ctx) {
  if (!redis) throw new Error('ran-recorder: neither REDIS_CLUSTER_NODES nor REDIS_URL is set');
  await redis.rpush(ranKey, `${ctx.scheduleId}:${ctx.fireAt}:${process.pid}`);
}
