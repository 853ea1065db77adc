import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { occurrenceJobId, unstageJobs } from '../../store/index.js';
import type { FireClock } from './fire-clock.js';
import type { Item } from './fire-loop-types.js';

/**
 * Occurrences committed to BullMQ ahead of their instant ("staged"): an occurrence claimed before its
 * fire time is added at once as a delayed job due exactly at that time, as BullMQ's own job schedulers
 * add their next job. BullMQ promotes it when it is due, so the fire instant costs BullMQ's promotion
 * (one script moving up to 1,000 jobs), not an `addBulk` at the instant, and a replica that dies after
 * staging holds nothing that is due.
 *
 * A staged job is recognised by its id and its place: in the queue's `delayed` set, scored at the fire
 * time its id names (a retry waiting for its backoff is scored later, and is left alone).
 */

/** The least time (ms) between claim and fire time for an occurrence to be staged rather than held. */
export const STAGE_MIN_MS = 5;

/**
 * The job options of a staged occurrence: delayed from `now` (Redis ms, the claim's clock) to exactly
 * `fireAt`. BullMQ scores a delayed job at `timestamp + delay`; both are given, so the score is the fire
 * time whatever this host's clock says.
 */
export function stagedJobOptions(opts: JobsOptions, fireAt: number, now: number): JobsOptions {
  return { ...opts, timestamp: now, delay: fireAt - now };
}

/**
 * How far past Redis's clock `unstage` looks for staged jobs (ms): beyond any claim horizon. A job the
 * fire-rate cap delayed may lie further: the caller passes how far the cap reaches (`reachAt`).
 */
const UNSTAGE_WINDOW_MS = 60_000;

/**
 * Remove the staged jobs of a schedule (or only its occurrence at `fireAt`) from `queue`, if BullMQ has
 * not promoted them yet. Returns their fire times. A pause, a removal or an update calls it after its
 * own write, and a replica that staged an occurrence of a schedule stopped meanwhile calls it too.
 */
export async function unstage(
  queue: Queue,
  scheduleId: string,
  fireAt?: number,
  /** The schedule's spread offset (`spreadOffsetMs`): its staged jobs are scored this far past their fire time. */
  offsetMs = 0,
  /** The latest instant a job of it may be staged at (the fire-rate cap's reach, `fireBudgetReach`); 0: none past the window. */
  reachAt = 0,
): Promise<number[]> {
  // BullMQ's Redis backend hands out its ioredis client
  const client = (await queue.getBackend().client) as unknown as Redis;
  const all = occurrenceJobId(scheduleId, 0);
  const prefix = all.slice(0, all.length - 1); // `bb-<id>-`
  const keys = { delayed: queue.keys.delayed!, events: queue.keys.events!, jobBase: queue.toKey('') };
  // the cap's reach is on the deployment's clock, the window on Redis's: the window's margin covers their skew
  const windowMs = Math.max(UNSTAGE_WINDOW_MS + offsetMs, reachAt - Date.now() + UNSTAGE_WINDOW_MS);
  return unstageJobs(client, keys, prefix, windowMs, fireAt, offsetMs);
}

/** What recording an unstaged occurrence needs (`RunHistory.merge`). */
export interface UnstagedRecords {
  merge(
    id: string,
    fireAt: number,
    manual: false,
    patch: { scheduleId: string; fireAt: number; kind: 'scheduled'; outcome: 'missed'; reason: 'paused' },
    counters: readonly 'missed'[],
  ): Promise<void>;
}

/**
 * Unstage a schedule's occurrences (or one) and record each one removed as missed, reason `paused`
 * (stopped before its fire time). Returns the fire times removed.
 */
export async function unstageAndRecord(
  queue: Queue,
  history: UnstagedRecords,
  scheduleId: string,
  fireAt?: number,
  offsetMs = 0,
  reachAt = 0,
): Promise<number[]> {
  const removed = await unstage(queue, scheduleId, fireAt, offsetMs, reachAt);
  await Promise.all(
    removed.map((at) =>
      history.merge(
        scheduleId,
        at,
        false,
        { scheduleId, fireAt: at, kind: 'scheduled', outcome: 'missed', reason: 'paused' },
        ['missed'],
      ),
    ),
  );
  return removed;
}

/**
 * Take from `later` (claimed occurrences waiting for their fire time) those to stage now: due at least
 * `STAGE_MIN_MS` after the claim, and not waiting for a backpressure look-up at their fire time
 * (`recheck`: decided when due, so held here as before).
 */
export function takeStageable(later: Item[], now: number): Item[] {
  const staged: Item[] = [];
  const kept: Item[] = [];
  for (const item of later) {
    const fireAt = item.plan.enqueue?.fireAt ?? item.claim.fireAt;
    (fireAt - now >= STAGE_MIN_MS && !item.recheck ? staged : kept).push(item);
  }
  later.splice(0, later.length, ...kept);
  return staged;
}

/**
 * The `fired` announcements of staged occurrences, each made at its fire time (by Redis's clock, as the
 * fire loop learns it), as for an occurrence added at its instant; one of a schedule stopped meanwhile
 * is dropped (its job was unstaged, and recorded missed). One timer for all.
 */
export class StagedAnnouncer {
  private queue: { id: string; fireAt: number; announce: () => void }[] = [];
  private timer: unknown;
  private drained: (() => void) | undefined;

  constructor(
    /** Monotonic ms until Redis's clock, as the fire loop learns it, reaches an instant. */
    private readonly until: (at: number) => number,
    /** The fire loop's timers. */
    private readonly timers: FireClock,
  ) {}

  add(id: string, fireAt: number, announce: () => void): void {
    this.queue.push({ id, fireAt, announce });
    if (this.queue.length > 1 && fireAt < this.queue[this.queue.length - 2]!.fireAt) {
      this.queue.sort((a, b) => a.fireAt - b.fireAt);
    }
    this.arm();
  }

  /** The schedules with announcements still to make. */
  ids(): string[] {
    return this.queue.map((e) => e.id);
  }

  /** A schedule was stopped: its announcements not made yet are dropped. */
  drop(id: string): void {
    this.queue = this.queue.filter((e) => e.id !== id);
    if (this.queue.length === 0) this.settle();
  }

  /** Resolves once every announcement waiting was made (at most a claim horizon away). */
  drain(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const prev = this.drained;
      this.drained = () => {
        prev?.();
        resolve();
      };
    });
  }

  private arm(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    const first = this.queue[0];
    this.timer = first
      ? this.timers.setTimeout(() => this.tick(), Math.max(0, Math.ceil(this.until(first.fireAt))))
      : undefined;
  }

  private tick(): void {
    this.timer = undefined;
    let n = 0;
    while (n < this.queue.length && this.until(this.queue[n]!.fireAt) <= 0) n++;
    for (const e of this.queue.splice(0, n)) e.announce();
    if (this.queue.length === 0) this.settle();
    else this.arm();
  }

  private settle(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const d = this.drained;
    this.drained = undefined;
    d?.();
  }
}

/**
 * How long after a staged job's due time (by Redis's clock, as the fire loop learns it) its queue is
 * woken (ms): the job is due by then on Redis's own clock, so BullMQ's promotion finds it.
 */
const WAKE_AFTER_MS = 2;
/**
 * Wakes of a queue are on a grid of this many ms: jobs due within one step share one wake (and one
 * promotion by BullMQ), where a wake per job of a load spread over the second would make the Worker
 * promote one job at a time. An instant on the grid (a whole second: the top of a cron minute) is woken
 * exactly at it.
 */
const WAKE_STEP_MS = 10;

/**
 * Wakes a queue's workers when its staged jobs become due. A BullMQ Worker with only delayed jobs ahead
 * blocks on the queue's marker until the first one's due time, and Redis ends that wait only at its
 * next event loop turn: up to `hz`'s 100 ms late on a quiet server (at 20 schedules due at once,
 * 48/53 ms p50/p99 staged against 18/22 ms added at the instant). At the due time this writes the
 * marker BullMQ's own adds write for a job ready now (`ZADD <marker> 0 "0"`, once per queue and
 * instant, on a grid of WAKE_STEP_MS): the Worker wakes, and its move to active promotes the due jobs.
 * A wake too early, or on a paused queue, costs the Worker one look and it waits again; none is needed
 * for correctness. One timer for all.
 */
export class StagedWaker {
  /** Due time → the queues with staged jobs due then. */
  private readonly due = new Map<number, Set<string>>();
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    /** Monotonic ms until Redis's clock, as the fire loop learns it, reaches an instant. */
    private readonly until: (at: number) => number,
    /** The fire loop's timers. */
    private readonly timers: FireClock,
    /** Write the marker of each of these queues. */
    private readonly wake: (queues: readonly string[]) => void,
  ) {}

  /** A job of `queue` was staged, due at `due` (Redis ms). */
  add(queue: string, due: number): void {
    const at = Math.ceil(due / WAKE_STEP_MS) * WAKE_STEP_MS;
    const queues = this.due.get(at);
    if (queues) queues.add(queue);
    else this.due.set(at, new Set([queue]));
    if (at < this.timerAt) this.arm(at);
  }

  /** Wake nothing more (the fire loop stops: the workers' own waits end the rest). */
  stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.due.clear();
  }

  private arm(at: number): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.timers.setTimeout(
      () => this.tick(),
      Math.max(0, Math.ceil(this.until(at))) + WAKE_AFTER_MS,
    );
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const queues = new Set<string>();
    let next = Number.POSITIVE_INFINITY;
    for (const [at, qs] of this.due) {
      if (this.until(at) <= 0) {
        for (const q of qs) queues.add(q);
        this.due.delete(at);
      } else if (at < next) next = at;
    }
    if (queues.size > 0) this.wake([...queues]);
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}
