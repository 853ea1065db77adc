import type { ScheduleStore } from './schedule-store.js';

/**
 * A replica stopping leaves the fleet that shares bursts (claim-6.lua's `<inflight>:fleet` hash), so the
 * others take its share at once rather than once its entry expires. Partitioned deployments do not
 * share (their claims go over every partition): nothing to leave.
 */
export async function leaveFleet(store: ScheduleStore, replica: string): Promise<void> {
  if (store.keys.index < 0) return;
  await store.redis.hdel(`${store.keys.inflight}:fleet`, replica);
}
