import type { Cluster, Redis } from 'ioredis';
import { OCCURRENCE_JOB_ID_PREFIX } from '../forms/index.js';
import { LedgerScripts } from '../scripts/index.js';

// BullMQ's event stream of a queue (`bull:<queue>:events`), read for the foreign outcome follower:
// its occurrences' `completed` and `failed` events, with their jobs' outcome fields.

/** A `completed` / `failed` event of an occurrence's job, from a queue's BullMQ event stream. */
export interface FinishedEvent {
  queue: string;
  jobId: string;
  state: 'completed' | 'failed';
  failedReason?: string | undefined;
  /**
   * The job hash's `processedOn`, `finishedOn`, `atm`, `attemptsMade`, `failedReason` (as `HMGET`
   * answers them), read with the event.
   */
  fields: (string | null)[];
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

/** Where a queue's events and jobs are: `queue.keys.events`, and `queue.toKey('')` (a job's hash is this and its id). */
export interface QueueEventKeys {
  events: string;
  jobBase: string;
}

/**
 * Up to `count` entries after `after`, without blocking (`finished-jobs-1`: the occurrences' finished
 * events and their jobs' outcome fields, read in Redis: the client decodes a few values per finished
 * job, not every entry of every job).
 */
export async function readFinishedEvents(
  client: Redis | Cluster,
  keys: QueueEventKeys,
  queue: string,
  after: string,
  count: number,
): Promise<EventsRead> {
  const res = await new LedgerScripts(client as Redis).finishedJobs({
    events: keys.events,
    jobBase: keys.jobBase,
    after,
    count,
    jobIdPrefix: OCCURRENCE_JOB_ID_PREFIX,
  });
  const finished: FinishedEvent[] = [];
  for (let i = 2; i + 8 <= res.length; i += 8) {
    const jobId = String(res[i]);
    const fields = res.slice(i + 3, i + 8).map((v) => (v === null ? null : String(v)));
    finished.push(
      res[i + 1] === 'failed'
        ? { queue, jobId, state: 'failed', failedReason: text(res[i + 2]), fields }
        : { queue, jobId, state: 'completed', fields },
    );
  }
  return { entries: Number(res[1]), last: String(res[0]), finished };
}

/** Block up to `blockMs` until the stream has an entry after `after` (`XREAD`); whether it has. */
export async function awaitEvents(
  client: Redis | Cluster,
  key: string,
  after: string,
  blockMs: number,
): Promise<boolean> {
  return (await client.xread('COUNT', 1, 'BLOCK', blockMs, 'STREAMS', key, after)) !== null;
}

function text(v: string | number | null | undefined): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}
