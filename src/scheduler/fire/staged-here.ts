/** One job this replica put in BullMQ's delayed set: its occurrence, and when BullMQ makes it runnable. */
export interface StagedJob {
  queue: string;
  /** The occurrence's fire time (its job id names it). */
  fireAt: number;
  /** Its schedule's spread offset (ms): the job is scored this far past its fire time. */
  offsetMs: number;
  /** When it becomes runnable (Redis ms): its fire time, plus its spread offset, or its fire-rate slot. */
  until: number;
}

/** Jobs remembered at most; past it, a stop notice searches the queue as a replica with no memory would. */
const MAX_REMEMBERED = 100_000;

/**
 * A job is remembered this long (ms) past its runnable instant, as this replica reckons Redis's clock:
 * the script that takes it back leaves one BullMQ could promote already, so a lookup too many costs one
 * command, and a clock reckoned a little ahead loses none.
 */
const KEPT_PAST_MS = 1_000;

/** Jobs runnable long enough ago are forgotten at most once per this long (ms of Redis time). */
const PRUNE_EVERY_MS = 1_000;

/**
 * The jobs this replica added as delayed (staged ahead, spread or held to a fire-rate slot), by
 * schedule, until each becomes runnable: what a stop notice takes back out of BullMQ. A notice for a
 * schedule with none here costs no Redis command, and one with some looks each up by its job id, so a
 * bulk pause of thousands does not search the queue's delayed jobs once per schedule and replica.
 */
export class StagedHere {
  readonly #byId = new Map<string, StagedJob[]>();
  #size = 0;
  #prunedAt = Number.NEGATIVE_INFINITY;
  /** More than `MAX_REMEMBERED` were added since the last time none was left: some were not kept. */
  #overflowed = false;

  /** Remember a job added as delayed (`now`: Redis time, to forget those runnable already). */
  add(id: string, job: StagedJob, now: number): void {
    this.tidy(now);
    if (this.#size >= MAX_REMEMBERED) {
      this.#overflowed = true;
      return;
    }
    const jobs = this.#byId.get(id);
    if (jobs) jobs.push(job);
    else this.#byId.set(id, [job]);
    this.#size++;
  }

  /**
   * The schedule's jobs not yet runnable at `now` (Redis ms), forgotten here; `undefined` when this
   * replica could not remember them all (search the queue instead).
   */
  take(id: string, now: number): StagedJob[] | undefined {
    const jobs = this.#byId.get(id);
    if (jobs) {
      this.#byId.delete(id);
      this.#size -= jobs.length;
    }
    if (this.#overflowed) return undefined;
    return (jobs ?? []).filter((j) => j.until + KEPT_PAST_MS >= now);
  }

  /** Forget the jobs runnable long enough before `now`, unless that was done within the last second. */
  tidy(now: number): void {
    if (now - this.#prunedAt >= PRUNE_EVERY_MS) this.prune(now);
  }

  /** Forget the jobs runnable long enough before `now`. */
  prune(now: number): void {
    this.#prunedAt = now;
    for (const [id, jobs] of this.#byId) {
      const left = jobs.filter((j) => j.until + KEPT_PAST_MS >= now);
      this.#size -= jobs.length - left.length;
      if (left.length === 0) this.#byId.delete(id);
      else if (left.length < jobs.length) this.#byId.set(id, left);
    }
    if (this.#size === 0) this.#overflowed = false;
  }
}
