import { performance } from 'node:perf_hooks';
import type { ClaimResult, Completion } from '../forms/index.js';

/** What the fan-out asks of one partition's store: its claim (`ScheduleStore.claim`, which uses the fan-out). */
export interface PartitionStore {
  claim(batch: number, leaseMs: number, token: string, aheadMs: number): Promise<ClaimResult>;
}

/** How much earlier than the estimated Redis time a partition counts as due (the estimate lags). */
const SLACK_MS = 5;
/** A partition whose claim failed is claimed again after this long (ms). */
const RETRY_MS = 1000;
/**
 * A partition with something due within the fire loop's horizon is claimed this many horizons ahead
 * (at most `maxWaitMs`): each partition is then claimed every few horizons with a batch that many
 * times bigger, instead of every half horizon with a handful (P claims and P completions per cycle).
 */
const REACH = 4;
/** The shortest time a claim cycle waits for a slow partition before going on without it (ms). */
const MIN_WAIT_MS = 20;

/** What one partition's last claim answer (and the wake messages since) say about it. */
interface PartitionState {
  /** Its earliest due time as known (-Infinity: unknown, claim it), or null: nothing due. */
  nextDue: number | null;
  /** Its earliest claim lease expiry as known, or null. */
  nextLease: number | null;
  /**
   * performance.now() when its claim in flight was sent: it is not claimed again until that one
   * answers, or `stuckMs` passed (a claim that never answers; a second claim is safe: an occurrence
   * moves from `due` to a claim once, and only a lapsed claim is taken over).
   */
  busySince: number | undefined;
  /** Estimated Redis time of its last answer (it is claimed again at least every `recheckMs`). */
  answeredAt: number;
}

export interface PartitionClaimsOptions {
  /** A partition not claimed for this long is claimed again whatever it said (the fire loop's `maxSleepMs`). */
  recheckMs: number;
  /** The longest a claim cycle waits for a slow partition (ms; a quarter of the claim lease). */
  maxWaitMs: number;
  /** A claim in flight for this long no longer stops its partition being claimed again (the claim lease). */
  stuckMs: number;
  /** A partition's claim failed (it is retried in 1 s; the others go on). */
  onError(err: unknown, partition: number): void;
}

/**
 * One claim cycle over every partition of a deployment (P > 1, a Redis Cluster): claims each
 * partition that has something due (known from its last claim answer, lowered by wake messages and
 * by completions), concurrently, each claim script touching its own partition's slot, and returns
 * their claims together, so that one replica's enqueue carries occurrences of every partition.
 *
 * A partition whose master is down or failing over does not hold the others back: a cycle waits for
 * the slow ones at most a little longer than claims usually take, then answers with what came; a
 * claim still in flight is handed back as `late` (its claims are planned when it answers) and its
 * partition is not claimed again meanwhile. A failed claim is reported and retried after 1 s.
 */
export class PartitionClaims {
  private readonly parts: PartitionState[];
  /** The latest Redis time learnt (ms), and performance.now() when it was learnt. */
  private redisNow: number | undefined;
  private redisNowAt = 0;
  /** Settles with the first claim answer (Redis time is known from then on). */
  private onFirstAnswer: () => void = () => undefined; // (declared first: the next line sets it)
  private readonly firstAnswer = new Promise<void>((resolve) => (this.onFirstAnswer = resolve));
  /** Recent time a partition took to answer a claim (ms, a decaying maximum). */
  private answerMs = 0;

  constructor(
    private readonly stores: readonly PartitionStore[],
    private readonly options: PartitionClaimsOptions,
  ) {
    this.parts = stores.map(() => ({
      nextDue: Number.NEGATIVE_INFINITY,
      nextLease: null,
      busySince: undefined,
      answeredAt: Number.NEGATIVE_INFINITY,
    }));
  }

  /**
   * A wake message: a due time (ms) as text, of a schedule in some partition: every partition is
   * claimed by then (each answer puts it right). Anything else (`handoff`): claim every partition now.
   */
  wake(message: string): void {
    if (message.startsWith('stop:')) return;
    const t = message.trim() === '' ? Number.NaN : Number(message);
    const at = Number.isFinite(t) ? t : Number.NEGATIVE_INFINITY;
    for (const p of this.parts) p.nextDue = p.nextDue === null ? at : Math.min(p.nextDue, at);
  }

  /** Completions were written: their schedules are due again at their `next` time. */
  completed(completions: readonly Completion[], partitionOf: (id: string) => number): void {
    for (const c of completions) {
      if (c.next === null) continue;
      const p = this.parts[partitionOf(c.claim.id)];
      if (p) p.nextDue = p.nextDue === null ? c.next : Math.min(p.nextDue, c.next);
    }
  }

  /** Claim every partition with something due by `now + aheadMs` (or a lapsing lease), all at once. */
  async claim(batch: number, leaseMs: number, token: string, aheadMs: number): Promise<ClaimResult> {
    const now = this.estimate();
    const chosen: number[] = [];
    this.parts.forEach((p, i) => {
      if (this.busy(p)) return;
      const due = p.nextDue !== null && p.nextDue <= now + aheadMs + SLACK_MS;
      const lapsing = p.nextLease !== null && p.nextLease <= now + SLACK_MS;
      if (due || lapsing || now - p.answeredAt >= this.options.recheckMs) chosen.push(i);
    });
    if (chosen.length === 0) {
      // nothing to claim; before any answer (every partition in flight) wait for one: Redis time is needed
      if (this.redisNow === undefined) await within(this.firstAnswer, this.options.maxWaitMs);
      if (this.redisNow === undefined)
        throw new Error('PartitionClaims: no partition answered its first claim');
      return this.summary(Math.floor(this.estimate()), [], false);
    }

    const reach = Math.min(aheadMs * REACH, Math.max(aheadMs, this.options.maxWaitMs));
    const sentAt = performance.now();
    type Answer = { i: number; res?: ClaimResult; err?: unknown };
    const calls = chosen.map((i) => {
      this.parts[i]!.busySince = performance.now();
      return this.stores[i]!.claim(batch, leaseMs, token, reach).then(
        (res): Answer => this.answered(i, res, sentAt),
        (err): Answer => this.failedClaim(i, err),
      );
    });
    // wait for all, but for a slow one no longer than claims usually take (it answers `late`)
    const answers = new Map<number, Answer>();
    calls.forEach((c, n) => void c.then((a) => answers.set(chosen[n]!, a)));
    // the first answer (at most `maxWaitMs`), then the others for a little longer than claims take
    await within(Promise.race(calls), this.options.maxWaitMs);
    const graceMs = Math.min(this.options.maxWaitMs, Math.max(MIN_WAIT_MS, Math.ceil(2 * this.answerMs)));
    await within(Promise.all(calls), graceMs);
    if (this.redisNow === undefined)
      throw new Error('PartitionClaims: no partition answered its first claim');

    const results: ClaimResult[] = [];
    const late: Promise<ClaimResult>[] = [];
    chosen.forEach((i, n) => {
      const a = answers.get(i);
      if (a?.res) results.push(a.res);
      else if (!a) {
        // still in flight: its claims (if any) are planned when it answers
        late.push(calls[n]!.then((x) => x.res ?? Promise.reject(x.err)));
      }
    });
    const nows = results.map((r) => r.now);
    const at = nows.length > 0 ? Math.min(...nows) : Math.floor(this.estimate());
    const full = results.some((r) => r.claims.length >= batch);
    const out = this.summary(
      at,
      results.flatMap((r) => r.claims),
      full,
    );
    if (late.length > 0) out.late = late;
    const parked = results.flatMap((r) => r.coalescedParked ?? []);
    if (parked.length > 0) out.coalescedParked = parked;
    return out;
  }

  private answered(i: number, res: ClaimResult, sentAt: number): { i: number; res: ClaimResult } {
    const p = this.parts[i]!;
    p.busySince = undefined;
    p.nextDue = res.nextDue;
    p.nextLease = res.nextLease;
    p.answeredAt = res.now;
    this.answerMs = Math.max(performance.now() - sentAt, this.answerMs * 0.9);
    if (this.redisNow === undefined || res.now > this.estimate()) {
      this.redisNow = res.now;
      this.redisNowAt = performance.now();
      this.onFirstAnswer();
    }
    return { i, res };
  }

  private failedClaim(i: number, err: unknown): { i: number; err: unknown } {
    const p = this.parts[i]!;
    p.busySince = undefined;
    const now = this.estimate();
    p.nextDue = now + RETRY_MS;
    p.answeredAt = now;
    this.options.onError(err, i);
    return { i, err };
  }

  /** The claims, with the earliest due time and lease known over the partitions not in flight. */
  private summary(now: number, claims: ClaimResult['claims'], full: boolean): ClaimResult {
    let nextDue: number | null = null;
    let nextLease: number | null = null;
    const at = performance.now();
    for (const p of this.parts) {
      if (p.busySince !== undefined) {
        // in flight: its answer re-arms the loop; if it never comes, claim it again after `stuckMs`
        const again = now + Math.max(0, this.options.stuckMs - (at - p.busySince));
        nextDue = nextDue === null ? again : Math.min(nextDue, again);
        continue;
      }
      if (p.nextDue !== null) nextDue = nextDue === null ? p.nextDue : Math.min(nextDue, p.nextDue);
      if (p.nextLease !== null)
        nextLease = nextLease === null ? p.nextLease : Math.min(nextLease, p.nextLease);
    }
    if (nextDue !== null && !Number.isFinite(nextDue)) nextDue = now;
    return { now, nextDue, nextLease, claims, full };
  }

  private busy(p: PartitionState): boolean {
    return p.busySince !== undefined && performance.now() - p.busySince < this.options.stuckMs;
  }

  /** Redis time now as estimated from the latest answer (a lower bound, slowed by 0.1 %); -Infinity before any. */
  private estimate(): number {
    if (this.redisNow === undefined) return Number.NEGATIVE_INFINITY;
    return this.redisNow + (performance.now() - this.redisNowAt) * 0.999;
  }
}

/** Wait for `p`, or `ms` at most. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
