import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { groupLeaseName, groupOccupancy, indexedGroups } from '../store/index.js';

/** One group (`group` option) and how full it is now, cluster-wide (live leases, by Redis `TIME`). */
export interface GroupOccupancy {
  key: string;
  /** The group's `max` (the smallest one its schedules declare, if they differ). */
  max: number;
  /** Schedules naming the group (any status). */
  schedules: number;
  /** Runs of the group going on now, on every worker. */
  running: number;
  /** Runs waiting in the group's line for a place (`overflow: 'bufferOne' | 'bufferAll'`). */
  waiting: number;
}

/**
 * Every group the deployment's schedules name, with its occupancy now, by key. Reads the group index
 * (the group keys kept with the definitions, per partition), not the schedules, then two counts per group.
 */
export async function groups(manager: SchedulerManager): Promise<GroupOccupancy[]> {
  const { redis, keys } = internalsOf(manager);
  const named = await indexedGroups(redis, keys);
  return Promise.all(
    named.map(async (g) => ({
      key: g.key,
      max: g.max,
      schedules: g.schedules,
      ...(await groupOccupancy(redis, keys, groupLeaseName(g.key))),
    })),
  );
}
