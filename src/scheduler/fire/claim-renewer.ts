import { type FireClock, monotonicClock } from './fire-clock.js';
import type { Batch } from './fire-loop-types.js';

/**
 * Keeps the claims this replica holds alive while it lives: every quarter of the claim lease, the
 * leases of claims held for longer than that (occurrences waiting for their fire time, a slow enqueue
 * under load) are extended by one lease. Claims are short-leased (`claimLeaseMs`, 1 s by default), so
 * a replica that dies holding occurrences loses them to another replica within one lease, while a
 * live one never loses a claim it is still working on. Renewal is best effort: a failed renewal is
 * logged and the claims may lapse and be taken over, which exactly once already covers (the same job
 * id, and the stale completion's compare-and-set fails).
 */
export class ClaimRenewer {
  /**
   * The claim ids each batch still holds (planned, not yet completed or given up), since when their
   * leases run (the instant the claim or the last renewal that extended them was sent), and those a
   * renewal found no longer held (taken over: never held by this token again).
   */
  private readonly held = new Map<Batch, { ids: Set<string>; since: number; lost: Set<string> }>();
  private timer: unknown;

  constructor(
    private readonly leaseMs: number,
    /** Extend the claims `ids` held by `token`; answers the ids no longer held. */
    private readonly renew: (ids: string[], token: string) => Promise<readonly string[]>,
    private readonly onError: (err: unknown) => void,
    /** The fire loop's clock: `now` and the renewal timer. */
    private readonly clock: FireClock = monotonicClock,
  ) {}

  private now(): number {
    return this.clock.now();
  }

  /** `batch` holds the claims `ids`, made (their leases started) no later than `since` (this clock). */
  hold(batch: Batch, ids: Iterable<string>, since = this.now()): void {
    let entry = this.held.get(batch);
    if (!entry) this.held.set(batch, (entry = { ids: new Set(), since, lost: new Set() }));
    for (const id of ids) entry.ids.add(id);
    if (entry.ids.size === 0) this.held.delete(batch);
    else this.arm();
  }

  /** `batch` no longer holds `ids` (completed, or given up to lapse). */
  release(batch: Batch, ids: Iterable<string>): void {
    const entry = this.held.get(batch);
    if (!entry) return;
    for (const id of ids) entry.ids.delete(id);
    if (entry.ids.size === 0) this.held.delete(batch);
    if (this.held.size === 0) this.disarm();
  }

  /** Claims held now (for tests and the footprint). */
  get size(): number {
    let n = 0;
    for (const { ids } of this.held.values()) n += ids.size;
    return n;
  }

  stop(): void {
    this.held.clear();
    this.disarm();
  }

  /** Extend every claim held (or last extended) a quarter of a lease ago or more (one call per batch). */
  async tick(): Promise<void> {
    const old = this.now() - this.leaseMs / 4;
    const due = [...this.held].filter(([, e]) => e.since <= old);
    await Promise.all(due.map(([batch, e]) => this.renewHeld(batch, e).catch((err) => this.onError(err))));
  }

  /**
   * Which of `ids` (claims of `batch`) are no longer this replica's: a stall (SIGSTOP, a VM pause, a
   * long GC) may have outlived their lease, and another replica taken them over. When more than half
   * a lease has passed on this process's monotonic clock since their lease last ran from (the claim,
   * or a renewal that extended it), they are extended in Redis first, which answers for each whether
   * it is still held; else the lease runs at least half a lease more, and only those a renewal found
   * lost are. A claim held when this answers stays held for the rest of its lease.
   */
  async lostOf(batch: Batch, ids: readonly string[]): Promise<Set<string>> {
    let e = this.held.get(batch);
    if (!e) e = { ids: new Set(ids), since: Number.NEGATIVE_INFINITY, lost: new Set() };
    if (this.now() - e.since > this.leaseMs / 2) await this.renewHeld(batch, e, ids);
    const lost = e.lost;
    return new Set(ids.filter((id) => lost.has(id)));
  }

  /**
   * Extend the claims of `e` (and `also`, ids not held here); its lease then runs from the instant
   * the renewal was sent, not from its answer: a process stopped in between would otherwise take
   * claims for its own that lapsed while it slept.
   */
  private async renewHeld(
    batch: Batch,
    e: { ids: Set<string>; since: number; lost: Set<string> },
    also: readonly string[] = [],
  ): Promise<void> {
    const ids = [...new Set([...e.ids, ...also])].filter((id) => !e.lost.has(id));
    const sent = this.now();
    const lost = ids.length === 0 ? [] : await this.renew(ids, batch.token);
    for (const id of lost) e.lost.add(id);
    e.since = sent;
  }

  /** Tick every quarter lease while claims are held (a process is not kept alive by it alone). */
  private arm(): void {
    if (this.timer) return;
    const every = Math.max(1, Math.floor(this.leaseMs / 4));
    const next = () => {
      this.timer = this.clock.setTimeout(() => {
        next();
        void this.tick();
      }, every);
      (this.timer as { unref?: () => void }).unref?.();
    };
    next();
  }

  private disarm(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
