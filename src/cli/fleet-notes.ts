import { FleetReader, isServed } from '../ops/index.js';
import type { SchedulerManager } from '../scheduler/index.js';

/**
 * What `schedule:add` says when the fleet registry knows of no live bullbeat worker with a handler
 * for `name` on `queue`: its runs would wait in the queue. Undefined when one is alive. A plain
 * BullMQ `Worker` is not in the registry, hence the wording.
 */
export async function unservedNote(
  m: SchedulerManager,
  queue: string,
  name: string,
): Promise<string | undefined> {
  const fleet = await new FleetReader(m.redis, m.prefix).snapshot();
  if (isServed(fleet, queue, name)) return undefined;
  const workers =
    fleet.workers === 0
      ? 'no bullbeat worker is alive'
      : `none of the ${fleet.workers} live bullbeat workers handles it`;
  return `jobs "${name}" on queue "${queue}": ${workers} (fleet registry); its runs wait in the queue until a worker for it starts (a plain BullMQ Worker does not register)`;
}

/** The queues of `queues` that no stored schedule targets: what `bullbeat worker --queues` warns of. */
export function queuesWithoutSchedule(
  queues: readonly string[],
  schedules: readonly { queue: string }[],
): string[] {
  const used = new Set(schedules.map((s) => s.queue));
  return queues.filter((q) => !used.has(q));
}
