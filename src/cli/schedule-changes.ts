import type { ScheduleDefinition } from '../store/index.js';

/** One field of a stored definition, as `schedule:add --replace` reports it. */
interface Field {
  label: string;
  read: (def: ScheduleDefinition) => unknown;
}

const text = (value: unknown): string =>
  value === undefined ? 'none' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * What differs between the definition that was stored and the one that replaces it, in the order a
 * reader cares about: `trigger Every 1 hour -> Every minute; attempts 1 -> 3`, or `nothing`.
 * `words` puts a trigger in words (a stored trigger's JSON otherwise).
 */
export function describeChanges(
  before: ScheduleDefinition,
  after: ScheduleDefinition,
  words: (def: ScheduleDefinition) => string,
): string {
  const fields: Field[] = [
    { label: 'trigger', read: (d) => words(d) },
    { label: 'name', read: (d) => d.name },
    { label: 'queue', read: (d) => d.queue },
    { label: 'data', read: (d) => d.data },
    { label: 'args', read: (d) => d.args },
    { label: 'attempts', read: (d) => d.attempts },
    { label: 'backoff', read: (d) => d.backoff },
    { label: 'max instances', read: (d) => d.run.maxInstances },
    { label: 'overlap', read: (d) => d.run.overlap },
    { label: 'timeout ms', read: (d) => d.run.timeoutMs },
    { label: 'misfire', read: (d) => d.misfire },
    { label: 'misfire grace ms', read: (d) => d.misfireGraceMs },
    { label: 'catch-up window ms', read: (d) => d.catchUpWindowMs },
    { label: 'source', read: (d) => d.source },
  ];
  const changes = fields.flatMap(({ label, read }) => {
    const was = text(read(before));
    const now = text(read(after));
    return was === now ? [] : [`${label} ${was} -> ${now}`];
  });
  return changes.length === 0 ? 'nothing' : changes.join('; ');
}
