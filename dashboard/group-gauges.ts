import { Gauge, type Registry } from 'prom-client';
import type { GroupOccupancy } from '../src/insight/index.js';

/** What the group gauges read: every group with its occupancy (`groups()`). */
export type GroupReader = () => Promise<GroupOccupancy[]>;

/**
 * The groups' gauges of the dashboard's `/metrics`, read at scrape time: runs going on, runs waiting
 * for a place and the `max` of each group, labelled by the group's key (one series per group the
 * schedules name).
 */
export function registerGroupGauges(registry: Registry, read: GroupReader): void {
  const registers = [registry];
  let last: Promise<GroupOccupancy[]> | undefined;
  // one read per scrape for the three gauges
  const once = () => {
    last ??= read().finally(() => setTimeout(() => (last = undefined), 0));
    return last;
  };
  const gauge = (name: string, help: string, pick: (g: GroupOccupancy) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['group'],
      registers,
      async collect() {
        this.reset();
        for (const g of await once()) this.set({ group: g.key }, pick(g));
      },
    });
  gauge(
    'bullbeat_group_running',
    'Runs of each group going on now, on every worker (live leases)',
    (g) => g.running,
  );
  gauge(
    'bullbeat_group_waiting',
    "Runs waiting in each group's line for a place (overflow bufferOne/bufferAll)",
    (g) => g.waiting,
  );
  gauge('bullbeat_group_max', 'Runs each group allows at once (its max)', (g) => g.max);
}
