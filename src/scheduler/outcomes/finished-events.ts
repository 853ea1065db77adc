import type { Cluster, Redis } from 'ioredis';

/** A `completed` / `failed` event of a queue's BullMQ event stream. */
export interface FinishedEvent {
  queue: string;
  jobId: string;
  state: 'completed' | 'failed';
  failedReason?: string | undefined;
}

/** Entries one read takes at most. */
const COUNT = 1000;
/** The longest a read blocks before it asks again (ms): a closed reader is not left waiting. */
const BLOCK_MS = 5000;
/** A read that failed (connection down) is tried again after this long (ms). */
const RETRY_MS = 1000;

/**
 * Follows one queue's BullMQ event stream for `completed` and `failed` events, on a connection of its
 * own, in gathered reads: after a read that brought fewer than COUNT entries it waits `gatherMs` before
 * the next, so that a steady trickle (a job finishing every millisecond) costs Redis one `XREAD` per
 * `gatherMs` rather than one per event or two, as BullMQ's `QueueEvents` does (it reads again at once).
 * It starts at the stream's end when started, like `QueueEvents`; an event trimmed from the stream
 * before it was read (BullMQ keeps the newest ~10,000) is left to the reconciliation pass.
 */
export class FinishedEventsReader {
  private closed = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    /** A connection for this reader alone (its reads block); disconnected by `close`. */
    private readonly client: Redis | Cluster,
    /** The queue's event stream key (`bull:<queue>:events`, or its cluster form). */
    private readonly key: string,
    private readonly queue: string,
    private readonly gatherMs: number,
    private readonly onEvents: (events: FinishedEvent[]) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Read from the stream's end as it is now; resolves once that position is known. */
  async start(): Promise<void> {
    const last = (await this.client.xrevrange(this.key, '+', '-', 'COUNT', 1))[0];
    this.loop = this.follow(last?.[0] ?? '0-0');
  }

  /** Stop reading (a read in flight is cut off with the connection). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    this.client.disconnect();
    await this.loop;
  }

  private async follow(from: string): Promise<void> {
    let id = from;
    while (!this.closed) {
      let entries: [string, string[]][];
      try {
        const res = (await this.client.xread('COUNT', COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, id)) as
          | [string, [string, string[]][]][]
          | null;
        entries = res?.[0]?.[1] ?? [];
      } catch (err) {
        if (this.closed) return;
        this.onError(err);
        await this.pause(RETRY_MS);
        continue;
      }
      const finished: FinishedEvent[] = [];
      for (const [entryId, fields] of entries) {
        id = entryId;
        const event = finishedEvent(this.queue, fields);
        if (event) finished.push(event);
      }
      if (finished.length > 0) this.onEvents(finished);
      if (entries.length < COUNT && this.gatherMs > 0) await this.pause(this.gatherMs);
    }
  }

  /** Wait `ms`, or less when closed meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** The event an entry's fields (`event`, `jobId`, ... as a flat list) name, if it is `completed` or `failed`. */
function finishedEvent(queue: string, fields: readonly string[]): FinishedEvent | undefined {
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
