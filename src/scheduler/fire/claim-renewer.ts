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
  /** The claim ids each batch still holds (planned, not yet completed or given up), and since when. */
  private readonly held = new Map<Batch, { ids: Set<string>; since: number }>();
  private timer: unknown;

  constructor(
    private readonly leaseMs: number,
    private readonly renew: (ids: string[], token: string) => Promise<unknown>,
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
    if (!entry) this.held.set(batch, (entry = { ids: new Set(), since }));
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
    await Promise.all(
      due.map(([batch, e]) =>
        this.renew([...e.ids], batch.token).then(
          () => {
            e.since = this.now();
          },
          (err) => this.onError(err),
        ),
      ),
    );
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
