import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';

/**
 * A schedule imported from one of BullMQ's job schedulers (`import:bullmq`), and how far BullMQ's side
 * of it goes: `keys.bullmqHandover(id)`, JSON `{ "scheduler", "queue", "createdAt", "until" }`.
 *
 * Until the hand-over (`until: null`) BullMQ's job scheduler runs every occurrence and the bullbeat
 * schedule is paused; at the hand-over BullMQ keeps its pending job (instant `until`) and bullbeat
 * fires every occurrence after it. So an occurrence of the schedule at or before `until` (or any, while
 * `until` is null) is BullMQ's to run, bullbeat's after: `schedule:why` says which side ran it.
 */
export interface BullmqHandover {
  /** The BullMQ job scheduler's id (its jobs are `repeat:<scheduler>:<instant ms>`). */
  scheduler: string;
  /** The BullMQ queue it ran on. */
  queue: string;
  /** The `createdAt` of the bullbeat schedule it became: a schedule created again later is not it. */
  createdAt: number;
  /** The last instant BullMQ runs (its pending job at the hand-over); null: not handed over yet. */
  until: number | null;
}

/** The one reader of a stored hand-over: null for a value that is not one (never thrown). */
export function parseBullmqHandover(v: string | null | undefined): BullmqHandover | null {
  if (!v) return null;
  try {
    const o = JSON.parse(v) as Partial<BullmqHandover>;
    if (typeof o !== 'object' || o === null) return null;
    if (typeof o.scheduler !== 'string' || typeof o.queue !== 'string' || typeof o.createdAt !== 'number') {
      return null;
    }
    return {
      scheduler: o.scheduler,
      queue: o.queue,
      createdAt: o.createdAt,
      until: typeof o.until === 'number' ? o.until : null,
    };
  } catch {
    return null;
  }
}

/** Whether BullMQ's side of the hand-over stands for the occurrence at `fireAt` of the schedule created at `createdAt`. */
export function leftToBullmq(
  h: BullmqHandover | null,
  createdAt: number | null,
  fireAt: number,
): h is BullmqHandover {
  return h !== null && createdAt === h.createdAt && (h.until === null || fireAt <= h.until);
}

/** The hand-over records in Redis. */
export class BullmqHandovers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async get(id: string): Promise<BullmqHandover | null> {
    return parseBullmqHandover(await this.redis.get(this.keys.bullmqHandover(id)));
  }

  async set(id: string, handover: BullmqHandover): Promise<void> {
    await this.redis.set(this.keys.bullmqHandover(id), JSON.stringify(handover));
  }
}
