import type { Cluster, Redis } from 'ioredis';

// BullMQ's event stream of a queue (`bull:<queue>:events`), read as `QueueEvents` reads it: its
// `completed` and `failed` entries, decoded.

/** A `completed` / `failed` event of a queue's BullMQ event stream. */
export interface FinishedEvent {
  queue: string;
  jobId: string;
  state: 'completed' | 'failed';
  failedReason?: string | undefined;
}

/** The id of the stream's newest entry, or `0-0` when it is empty. */
export async function lastEventId(client: Redis | Cluster, key: string): Promise<string> {
  const last = (await client.xrevrange(key, '+', '-', 'COUNT', 1))[0];
  return last?.[0] ?? '0-0';
}

/** One read of the stream: how many entries it brought, the last one's id, their finished events. */
export interface EventsRead {
  entries: number;
  /** The id of the last entry read (`after` when none). */
  last: string;
  finished: FinishedEvent[];
}

/** Up to `count` entries after `after`, blocking up to `blockMs` for the first (`XREAD`). */
export async function readFinishedEvents(
  client: Redis | Cluster,
  key: string,
  queue: string,
  after: string,
  count: number,
  blockMs: number,
): Promise<EventsRead> {
  const res = (await client.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', key, after)) as
    | [string, [string, string[]][]][]
    | null;
  const entries = res?.[0]?.[1] ?? [];
  let last = after;
  const finished: FinishedEvent[] = [];
  for (const [entryId, fields] of entries) {
    last = entryId;
    const event = decodeFinishedEvent(queue, fields);
    if (event) finished.push(event);
  }
  return { entries: entries.length, last, finished };
}

/** The event an entry's fields (`event`, `jobId`, ... as a flat list) name, if it is `completed` or `failed`. */
export function decodeFinishedEvent(queue: string, fields: readonly string[]): FinishedEvent | undefined {
  let event: string | undefined;
  let jobId: string | undefined;
  let failedReason: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i];
    if (name === 'event') event = fields[i + 1];
    else if (name === 'jobId') jobId = fields[i + 1];
    else if (name === 'failedReason') failedReason = fields[i + 1];
  }
  if (jobId === undefined || (event !== 'completed' && event !== 'failed')) return undefined;
  return event === 'failed'
    ? { queue, jobId, state: 'failed', failedReason }
    : { queue, jobId, state: 'completed' };
}
