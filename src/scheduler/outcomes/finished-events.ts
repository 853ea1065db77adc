import type { Cluster, Redis } from 'ioredis';
import { type EventsRead, type FinishedEvent, lastEventId, readFinishedEvents } from '../../store/index.js';

export type { FinishedEvent };

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
  /** Settles at a `close` while the connection is down: the read waiting for it is let go. */
  private readonly closing: Promise<undefined>;
  private settleClosing: (() => void) | undefined;

  constructor(
    /** A connection for this reader alone (its reads block); disconnected by `close`. */
    private readonly client: Redis | Cluster,
    /** The queue's event stream key (`bull:<queue>:events`, or its cluster form). */
    private readonly key: string,
    private readonly queue: string,
    private readonly gatherMs: number,
    private readonly onEvents: (events: FinishedEvent[]) => void,
    private readonly onError: (err: unknown) => void,
  ) {
    // its connection's own errors (a refused reconnection) too: ioredis prints one emitted with no listener
    client.on('error', onError);
    this.closing = new Promise((resolve) => {
      this.settleClosing = () => resolve(undefined);
    });
  }

  /** Read from the stream's end as it is now; resolves once that position is known. */
  async start(): Promise<void> {
    this.loop = this.follow(await lastEventId(this.client, this.key));
  }

  /** Stop reading (a read in flight is cut off with the connection). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    // connected, the read in flight fails with the connection; down, it would wait in ioredis's offline
    // queue for good (flushed only when a connection closes): not waited for
    if (this.client.status !== 'ready') this.settleClosing?.();
    this.client.disconnect();
    await this.loop;
  }

  private async follow(from: string): Promise<void> {
    let id = from;
    while (!this.closed) {
      let read: EventsRead;
      try {
        const done = await Promise.race([
          readFinishedEvents(this.client, this.key, this.queue, id, COUNT, BLOCK_MS),
          this.closing,
        ]);
        if (done === undefined) return;
        read = done;
      } catch (err) {
        if (this.closed) return;
        this.onError(err);
        await this.pause(RETRY_MS);
        continue;
      }
      id = read.last;
      if (read.finished.length > 0) this.onEvents(read.finished);
      if (read.entries < COUNT && this.gatherMs > 0) await this.pause(this.gatherMs);
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
