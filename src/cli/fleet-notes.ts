import { FleetReader, type FleetSnapshot, isServed, queuesHandling, runByNameOnly } from '../ops/index.js';
import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';

/**
 * What `schedule:add` says when the fleet registry knows of no live bullbeat worker that handles
 * `name` on `queue` (each worker records which job names it handles on which queue): its runs would
 * wait in the queue. Undefined when one is alive. A plain BullMQ `Worker` is not in the registry,
 * hence the wording.
 */
export async function unservedNote(
  m: SchedulerManager,
  queue: string,
  name: string,
): Promise<string | undefined> {
  return unservedNoteOf(
    await new FleetReader(internalsOf(m).redis, internalsOf(m).prefix).snapshot(),
    queue,
    name,
  );
}

/** `unservedNote` on a fleet already read. */
export function unservedNoteOf(fleet: FleetSnapshot, queue: string, name: string): string | undefined {
  if (isServed(fleet, queue, name)) return undefined;
  const byName = runByNameOnly(fleet, queue, name);
  if (byName.length > 0) {
    // it runs (a worker runs any job it has a handler for by name), but that handler is for another queue
    const elsewhere = [...new Set(byName.flatMap((w) => queuesHandling(w, name)))];
    const where =
      elsewhere.length > 0 ? `queue ${elsewhere.map((q) => `"${q}"`).join(', ')}` : 'other queues';
    return `jobs "${name}" on queue "${queue}": the live bullbeat workers consuming "${queue}" run them by name, but handle "${name}" on ${where} (fleet registry): is the queue right?`;
  }
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

/**
 * What else `bullbeat worker --queues` warns of: per queue of `queues`, the job names of its stored
 * schedules that this worker has no handler for (`handled`) and that no live worker of the fleet
 * handles there either. Their runs wait in the queue. Queue → names, only the queues with some.
 */
export function unhandledOnQueues(
  queues: readonly string[],
  schedules: readonly { queue: string; name: string }[],
  handled: (name: string) => boolean,
  fleet: FleetSnapshot | undefined,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const wanted = new Set(queues);
  for (const s of schedules) {
    if (!wanted.has(s.queue) || handled(s.name)) continue;
    if (fleet && isServed(fleet, s.queue, s.name)) continue;
    const names = (out[s.queue] ??= []);
    if (!names.includes(s.name)) names.push(s.name);
  }
  for (const names of Object.values(out)) names.sort();
  return out;
}
