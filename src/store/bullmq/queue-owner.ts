import type { Redis } from 'ioredis';
import { ConfigError } from '../../errors/config-error.js';
import { RELEASE_QUEUE, ScriptCaller, scriptArgs } from '../scripts/index.js';

/**
 * How long a deployment holds a queue after its last worker's last renewal (ms): its workers renew it
 * every third of this, so it lapses this long after the last of them stopped or died.
 */
export const QUEUE_HOLD_MS = 15_000;

/**
 * The deployment whose bullbeat workers serve a BullMQ queue: a string holding its prefix, at
 * `<BullMQ prefix>:<queue>:bb:deployment`, in the queue's own key space (on a Redis Cluster, the
 * queue's slot). Each worker sets it when it starts (`SET NX`) and renews it while it lives, with a
 * time to live of `QUEUE_HOLD_MS`: a retired deployment, or one whose prefix changed, leaves nothing
 * behind for long.
 *
 * Two deployments (prefixes) whose workers consume one queue take each other's jobs: a job whose name
 * the taker has no handler for fails (`UnknownHandlerError`), one it has runs outside its own
 * deployment's overlap rules and records. So while one deployment holds a queue, a worker of another is
 * refused, and so is a scheduler replica of another whose schedules enqueue there. A queue no bullbeat
 * worker serves (a plain BullMQ consumer's) is held by no one and stays shareable.
 */
export function queueOwnerKey(bullPrefix: string | undefined, queue: string): string {
  return `${bullPrefix ?? 'bull'}:${queue}:bb:deployment`;
}

/**
 * A worker's hold on a queue it serves, taken at its start and renewed while it lives: a `ConfigError`
 * when another deployment holds it.
 */
export async function holdQueue(
  redis: Redis,
  bullPrefix: string | undefined,
  queue: string,
  prefix: string,
): Promise<void> {
  const key = queueOwnerKey(bullPrefix, queue);
  if ((await redis.set(key, prefix, 'PX', QUEUE_HOLD_MS, 'NX')) === 'OK') return;
  const owner = await redis.get(key);
  if (owner === prefix) await redis.pexpire(key, QUEUE_HOLD_MS);
  // lapsed between the two calls: take it
  else if (owner === null) await redis.set(key, prefix, 'PX', QUEUE_HOLD_MS, 'NX');
  else ownedElsewhere(key, queue, prefix, owner);
}

/**
 * A worker's graceful close lets its deployment's hold on a queue go at once (when it is still this
 * deployment's), so that a deployment started next on the queue is not refused for `QUEUE_HOLD_MS`.
 * Another worker of the same deployment still running takes it again at its next renewal.
 */
export async function releaseQueue(
  redis: Redis,
  bullPrefix: string | undefined,
  queue: string,
  prefix: string,
): Promise<void> {
  const key = queueOwnerKey(bullPrefix, queue);
  // compare-and-delete in one step (`release-queue-1`): a hold another deployment took meanwhile is left alone
  await new ScriptCaller(redis).run(RELEASE_QUEUE, scriptArgs(RELEASE_QUEUE, { owner: key }, { prefix }));
}

/** A scheduler's check of a queue it enqueues onto (it holds nothing: a plain consumer may serve it). */
export async function checkQueueOwner(
  redis: Redis,
  bullPrefix: string | undefined,
  queue: string,
  prefix: string,
): Promise<void> {
  const key = queueOwnerKey(bullPrefix, queue);
  const owner = await redis.get(key);
  if (owner !== null && owner !== prefix) ownedElsewhere(key, queue, prefix, owner);
}

function ownedElsewhere(key: string, queue: string, prefix: string, owner: string): never {
  throw new ConfigError(
    'BULLBEAT_PREFIX',
    `"${prefix}", but queue "${queue}" is served by the workers of deployment "${owner}" (${key}): ` +
      "each would take the other's jobs. Give this deployment its own queue (the default one is named " +
      `after the prefix), or run both as one deployment (the same prefix) to share it; "${owner}" holds ` +
      `the queue while its workers run (until ${QUEUE_HOLD_MS / 1000} s after the last one died; at once when it stops)`,
  );
}
