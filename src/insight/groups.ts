import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { groupLeaseName, groupOccupancy } from '../store/index.js';

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
 * Every group the deployment's schedules name, with its occupancy now, by key. Reads every schedule's
 * definition (`list`), then two counts per group.
 */
export async function groups(manager: SchedulerManager): Promise<GroupOccupancy[]> {
  const byKey = new Map<string, { max: number; schedules: number }>();
  for (const job of await manager.list()) {
    const g = job.def.run.group;
    if (!g) continue;
    const seen = byKey.get(g.key);
    byKey.set(g.key, { max: Math.min(seen?.max ?? g.max, g.max), schedules: (seen?.schedules ?? 0) + 1 });
  }
  const out = await Promise.all(
    [...byKey].map(async ([key, g]) => ({
      key,
      ...g,
      ...(await groupOccupancy(internalsOf(manager).redis, internalsOf(manager).keys, groupLeaseName(key))),
    })),
  );
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
