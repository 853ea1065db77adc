import type { ChangeOptions, SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import { type BullmqHandover, BullmqHandovers, redisTime } from '../store/index.js';
import type { BullmqSchedule } from './bullmq-import-plan.js';
import type { BullmqOriginals } from './bullmq-originals.js';

/**
 * How far ahead of its job scheduler's pending job a schedule is created, paused at once: no replica
 * claims an occurrence of it in between. The hand-over sets its real start.
 */
export const HOLD_AHEAD_MS = 60_000;

/** Tries of a hand-over while BullMQ moves on to a new pending job under it. */
const HAND_OVER_TRIES = 5;

/** Where one imported job scheduler stands between BullMQ and bullbeat. */
export type HandOverState =
  /** BullMQ's job scheduler runs every occurrence; the bullbeat schedule is paused until the hand-over. */
  | { state: 'held' }
  /** BullMQ runs its pending job at `until` (and nothing after); bullbeat runs from `next`. */
  | { state: 'handed-over'; until: number; next: number | null }
  /** The bullbeat schedule was running already: BullMQ's pending job was removed with its scheduler. */
  | { state: 'taken'; at: number | null }
  /** A bullbeat schedule of this id was running already, beside BullMQ's job scheduler: both run. */
  | { state: 'both' }
  /** BullMQ moved on to a new pending job at each try: still held (run the import again). */
  | { state: 'moved-on' };

/** A hand-over finished by this import whose BullMQ job scheduler was gone already. */
export interface FinishedHandOver {
  id: string;
  scheduler: string;
  handover: HandOverState;
}

/**
 * Moves an imported job scheduler from BullMQ to bullbeat so that each occurrence runs once, in any
 * order of `import:bullmq`, `import:bullmq --remove-originals` and starting the scheduler.
 *
 * An imported schedule is held (paused) while BullMQ's job scheduler lives; its hand-over record
 * (`BullmqHandovers`) says BullMQ runs its occurrences. The hand-over reads BullMQ's pending job T,
 * sets the record's `until` to T, then removes BullMQ's scheduler in one step that checks its pending
 * job is still T (else the record goes back to `until: null` and it tries again at the new one): T's
 * job stays and runs once on BullMQ; then the schedule starts after T and resumes from its first
 * occurrence after it. A crash between two steps leaves the schedule held; running the import again
 * finishes the hand-over (from the record's T once BullMQ's scheduler is gone).
 */
export class BullmqHandOver {
  readonly #manager: SchedulerManager;
  readonly #originals: BullmqOriginals;
  readonly #records: BullmqHandovers;
  readonly #change: Required<Pick<ChangeOptions, 'by' | 'via'>>;

  constructor(
    manager: SchedulerManager,
    originals: BullmqOriginals,
    change: Required<Pick<ChangeOptions, 'by' | 'via'>>,
  ) {
    this.#manager = manager;
    this.#originals = originals;
    this.#records = new BullmqHandovers(internalsOf(manager).redis, internalsOf(manager).keys);
    this.#change = change;
  }

  /**
   * One imported job scheduler's schedule, `created` by this import or existing already: held while
   * BullMQ's scheduler lives, handed over when `removing`. Undefined for a schedule that is not one.
   */
  async settle(
    id: string,
    source: BullmqSchedule,
    created: boolean,
    removing: boolean,
  ): Promise<{ handover: HandOverState; original?: 'removed' | 'gone' } | undefined> {
    if (source.kind !== 'job-scheduler') return undefined;
    const job = await this.#manager.get(id);
    if (!job) return undefined;
    const record = created ? null : await this.#records.get(id);
    const pending = await this.#originals.pendingAt(source.key);
    if (!created && !record) {
      // a bullbeat schedule of its own, running beside BullMQ's: BullMQ's goes, its pending job with it
      if (!removing) return pending === null ? undefined : { handover: { state: 'both' } };
      return { handover: { state: 'taken', at: pending }, original: await this.#originals.remove(source) };
    }
    if (pending === null && !created) {
      // BullMQ's side is gone (an earlier hand-over stopped after it): bullbeat runs after its last job
      if (job.toJSON().status !== 'paused') return undefined;
      return { handover: await this.#finish(id, source), original: 'gone' };
    }
    if (pending === null) return undefined; // no pending job: nothing of BullMQ's to hand over
    await this.#hold(id, source, created);
    if (!removing) return { handover: { state: 'held' } };
    return this.#handOver(id, source);
  }

  /**
   * Finishes each hand-over from this queue that a crash (or a job scheduler removed by other means)
   * left with its BullMQ side gone and its schedule still paused, but those in `seen` (settled already).
   */
  async finishCutShort(seen: ReadonlySet<string>): Promise<FinishedHandOver[]> {
    const out: FinishedHandOver[] = [];
    for (const job of await this.#manager.list()) {
      const { status, createdAt } = job.toJSON();
      if (seen.has(job.id) || status !== 'paused') continue;
      const record = await this.#records.get(job.id);
      if (record?.queue !== this.#originals.queueName || record.createdAt !== createdAt) continue;
      if ((await this.#originals.pendingAt(record.scheduler)) !== null) continue;
      const source: BullmqSchedule = { kind: 'job-scheduler', key: record.scheduler, name: job.name };
      out.push({ id: job.id, scheduler: record.scheduler, handover: await this.#finish(job.id, source) });
    }
    return out;
  }

  /**
   * Pauses the schedule (if it is not already) and records that BullMQ's job scheduler runs it; one
   * just `created` (its start `HOLD_AHEAD_MS` ahead) gets its own start back once paused.
   */
  async #hold(id: string, source: BullmqSchedule, created: boolean): Promise<void> {
    const job = await this.#manager.get(id);
    if (job?.toJSON().status === 'active') {
      await this.#manager.pause(id, {
        ...this.#change,
        note: `BullMQ's job scheduler "${source.key}" runs it until import:bullmq --remove-originals hands it over`,
      });
    }
    if (created) await this.#manager.update(id, { startAt: source.startDate ?? null }, this.#change);
    const createdAt = (await this.#manager.get(id))?.toJSON().createdAt ?? 0;
    await this.#records.set(id, this.#record(source, createdAt, null));
  }

  async #handOver(
    id: string,
    source: BullmqSchedule,
  ): Promise<{ handover: HandOverState; original?: 'removed' | 'gone' }> {
    const createdAt = (await this.#manager.get(id))?.toJSON().createdAt ?? 0;
    for (let attempt = 0; attempt < HAND_OVER_TRIES; attempt++) {
      // From reading BullMQ's pending job to removing its scheduler, BullMQ must not move on: only the
      // reads and the record that must precede the removal happen in between (four round trips); the
      // schedule's own start is set after it (a crash there leaves the record, which the next import
      // finishes from).
      const pending = await this.#originals.pendingAt(source.key);
      if (pending === null) return { handover: await this.#finish(id, source), original: 'gone' };
      // read while its pending job is `pending`: the check below keeps the two together
      const made = await this.#originals.iterations(source.key);
      await this.#records.set(id, this.#record(source, createdAt, pending));
      const done = await this.#originals.keepPending(source.key, pending);
      if (done === 'moved-on') {
        // BullMQ runs `pending` and goes on: its side is every occurrence still
        await this.#records.set(id, this.#record(source, createdAt, null));
        continue;
      }
      const limit = await this.#startAfter(id, source, pending, made);
      return { handover: await this.#resume(id, pending, limit), original: done };
    }
    return { handover: { state: 'moved-on' } };
  }

  /**
   * The schedule starts after `until`, and its record says BullMQ runs up to `until`. Under a `limit`,
   * bullbeat runs what BullMQ has not made by then (`made`: its jobs so far, the pending one included);
   * none left, the schedule ends where it starts.
   */
  async #startAfter(id: string, source: BullmqSchedule, until: number, made?: number): Promise<RunsLeft> {
    const startAt = Math.max(source.startDate ?? 0, until + 1);
    const left = source.limit !== undefined && made !== undefined ? source.limit - made : undefined;
    await this.#manager.update(id, { startAt, ...runsLeft(left, startAt) }, this.#change);
    const createdAt = (await this.#manager.get(id))?.toJSON().createdAt ?? 0;
    await this.#records.set(id, this.#record(source, createdAt, until));
    return left === undefined ? undefined : { left, startAt };
  }

  /**
   * Finishes a hand-over whose BullMQ side is gone: after the instant it recorded, or (BullMQ's
   * scheduler removed by other means) after now.
   */
  async #finish(id: string, source: BullmqSchedule): Promise<HandOverState> {
    const until = (await this.#records.get(id))?.until ?? (await redisTime(internalsOf(this.#manager).redis));
    await this.#startAfter(id, source, until);
    return this.#resume(id, until);
  }

  /**
   * Resumes the schedule, started after BullMQ's last job at `until`. Occurrences after `until` that
   * came due before it resumed (BullMQ's pending job was late, or the hand-over slow) were BullMQ's
   * to make and are now bullbeat's: each runs once, as a backfill, and counts against the job
   * scheduler's `limit` (`limit`: the runs it left to bullbeat, set as `maxRuns` from `startAt`).
   */
  async #resume(id: string, until: number, limit?: RunsLeft): Promise<HandOverState> {
    await this.#manager.resume(id, { ...this.#change, policy: 'skip' });
    const next = (await this.#manager.get(id))?.nextRunTime ?? null;
    const to = next ?? (await redisTime(internalsOf(this.#manager).redis));
    if (to > until + 1) {
      const { enqueued } = await this.#manager.backfill(id, { ...this.#change, from: until + 1, to });
      if (limit && limit.left > 0 && enqueued > 0) {
        await this.#manager.update(id, runsLeft(limit.left - enqueued, limit.startAt), this.#change);
      }
    }
    return { state: 'handed-over', until, next };
  }

  #record(source: BullmqSchedule, createdAt: number, until: number | null): BullmqHandover {
    return { scheduler: source.key, queue: this.#originals.queueName, createdAt, until };
  }
}

/** The runs a job scheduler's `limit` leaves to bullbeat, from the schedule's `startAt`; undefined: no limit. */
type RunsLeft = { left: number; startAt: number } | undefined;

/**
 * The schedule options that hold it to `left` scheduled runs: `maxRuns`, or, none left, an end where it
 * starts (an occurrence at `startAt` itself would be 1 ms after BullMQ's last: no BullMQ schedule has one).
 */
function runsLeft(left: number | undefined, startAt: number): { maxRuns?: number; endAt?: number } {
  if (left === undefined) return {};
  return left > 0 ? { maxRuns: left } : { endAt: startAt };
}
