import type { Cluster, Redis } from 'ioredis';
import {
  awaitEvents,
  type EventsRead,
  type FinishedEvent,
  lastEventId,
  type QueueEventKeys,
  readFinishedEvents,
} from '../../store/index.js';

export type { FinishedEvent };

/** Entries one read takes at most. */
const COUNT = 1000;
/** The longest a read blocks before it asks again (ms): a closed reader is not left waiting. */
const BLOCK_MS = 5000;
/** A read that failed (connection down) is tried again after this long (ms). */
const RETRY_MS = 1000;

/**
 * Follows one queue's BullMQ event stream for its occurrences' `completed` and `failed` events, on a
 * connection of its own, in gathered reads: after a read that brought fewer than COUNT entries it waits
 * `gatherMs` before the next (and then, with a `hold`, while that says so: jobs waiting to start), so
 * that a steady trickle (a job finishing every millisecond) costs Redis one read per `gatherMs` rather
 * than one per event or two, as BullMQ's `QueueEvents` does (it reads again at once). A read is a script (`finished-jobs-1`) that answers each finished job with its outcome
 * fields, read in Redis: a run's other entries (added, waiting, active, ...) never reach this process.
 * A read that finds nothing blocks on the stream (`XREAD`, one entry) until there is more. It starts at
 * the stream's end when started, like `QueueEvents`; an event trimmed from the stream before it was read
 * (BullMQ keeps the newest ~10,000) is left to the reconciliation pass.
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
    /** The queue's event stream and job keys (`bull:<queue>:events`, `bull:<queue>:`, or their cluster form). */
    private readonly keys: QueueEventKeys,
    private readonly queue: string,
    private readonly gatherMs: number,
    /** The finished events of one read, and when (by `hold`'s clock) that read was first due. */
    private readonly onEvents: (events: FinishedEvent[], dueAt: number | undefined) => void,
    private readonly onError: (err: unknown) => void,
    /**
     * Called before a read that follows a partial one (not while catching up): it resolves when the read
     * may go, with when it was first due. The follower holds reads while a burst's jobs wait to start.
     */
    private readonly hold?: () => Promise<number>,
  ) {
    // its connection's own errors (a refused reconnection) too: ioredis prints one emitted with no listener
    client.on('error', onError);
    this.closing = new Promise((resolve) => {
      this.settleClosing = () => resolve(undefined);
    });
  }

  /** Read from the stream's end as it is now; resolves once that position is known. */
  async start(): Promise<void> {
    this.loop = this.follow(await lastEventId(this.client, this.keys.events));
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
    let dueAt: number | undefined;
    let caughtUp = true;
    while (!this.closed) {
      let read: EventsRead;
      try {
        if (caughtUp && this.hold) dueAt = await this.hold();
        const done = await Promise.race([
          readFinishedEvents(this.client, this.keys, this.queue, id, COUNT),
          this.closing,
        ]);
        if (done === undefined) return;
        read = done;
        if (read.entries === 0) {
          // nothing new: wait on the stream for more (its answer is read again by the next read)
          const more = await Promise.race([
            awaitEvents(this.client, this.keys.events, id, BLOCK_MS),
            this.closing,
          ]);
          if (more === undefined) return;
          continue;
        }
      } catch (err) {
        if (this.closed) return;
        this.onError(err);
        await this.pause(RETRY_MS);
        continue;
      }
      id = read.last;
      if (read.finished.length > 0) this.onEvents(read.finished, dueAt);
      caughtUp = read.entries < COUNT;
      if (caughtUp && this.gatherMs > 0) await this.pause(this.gatherMs);
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
