import type { Redis } from 'ioredis';
import { ConfigError } from '../errors/config-error.js';

/**
 * The deployment whose bullbeat workers serve a BullMQ queue: a string holding its prefix, at
 * `<BullMQ prefix>:<queue>:bb:deployment`, in the queue's own key space (so on a Redis Cluster it is in
 * the queue's slot, and BullMQ's `obliterate` takes it with the queue). The first worker to serve the
 * queue records it (`SET NX`); it is kept, as a deployment's queues are.
 *
 * Two deployments (prefixes) whose workers consume one queue take each other's jobs: a job whose name
 * the taker has no handler for fails (`UnknownHandlerError`), one it has runs outside its own
 * deployment's overlap rules and records. So a worker of another deployment is refused, and so is a
 * scheduler replica that would enqueue onto a queue another deployment's workers serve. A queue no
 * bullbeat worker serves (a plain BullMQ consumer's) records nothing and stays shareable.
 */
export function queueOwnerKey(bullPrefix: string | undefined, queue: string): string {
  return `${bullPrefix ?? 'bull'}:${queue}:bb:deployment`;
}

/** A worker's claim on a queue it is about to serve: a `ConfigError` when another deployment's workers serve it. */
export async function claimQueue(
  redis: Redis,
  bullPrefix: string | undefined,
  queue: string,
  prefix: string,
): Promise<void> {
  const key = queueOwnerKey(bullPrefix, queue);
  if ((await redis.set(key, prefix, 'NX')) === 'OK') return;
  ownedElsewhere(key, queue, prefix, await redis.get(key));
}

/** A scheduler's check of a queue it enqueues onto (it records nothing: a plain consumer may serve it). */
export async function checkQueueOwner(
  redis: Redis,
  bullPrefix: string | undefined,
  queue: string,
  prefix: string,
): Promise<void> {
  const key = queueOwnerKey(bullPrefix, queue);
  ownedElsewhere(key, queue, prefix, await redis.get(key));
}

function ownedElsewhere(key: string, queue: string, prefix: string, owner: string | null): void {
  if (owner === null || owner === prefix) return;
  throw new ConfigError(
    'BULLBEAT_PREFIX',
    `"${prefix}", but queue "${queue}" is served by the workers of deployment "${owner}" (${key}): ` +
      "each would take the other's jobs. Give this deployment its own queue (the default one is named " +
      `after the prefix), or run both as one deployment (the same prefix) to share it; if "${owner}" is ` +
      'gone, delete that key',
  );
}
