import type { Redis } from 'ioredis';
import type { Keys } from './keys.js';

// The deployment's pub/sub channels (`keys.wake`, `keys.cancel`): what is published and subscribed.
// A subscriber is a connection of its caller's own (`duplicate()`): it can send nothing else.

/** The wake message of a replica that stopped: what it claimed is back in `due`, claim now. */
export const WAKE_HANDOFF = 'handoff';

/** Publish `message` on the wake channel (a due time, `stop:<id>`, `handoff`). */
export async function publishWake(redis: Redis, keys: Keys, message: string): Promise<void> {
  await redis.publish(keys.wake, message);
}

/** Subscribe `subscriber` to `channel`. */
export async function subscribeTo(subscriber: Redis, channel: string): Promise<void> {
  await subscriber.subscribe(channel);
}

/** Unsubscribe `subscriber` from every channel. */
export async function unsubscribeAll(subscriber: Redis): Promise<void> {
  await subscriber.unsubscribe();
}
