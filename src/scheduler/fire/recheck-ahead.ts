import type { FireClock } from './fire-clock.js';
import { fireTime, type Item } from './fire-loop-types.js';
import type { RedisClock } from './redis-clock.js';
import { STAGE_MIN_MS } from './staged-jobs.js';

/** Room (ms) left between an early look-up and the fire time for the add of what it lets through. */
const LOOKUP_ROOM_MS = 50;

/** The lead of an early look-up (ms): at least the room to stage, at most this. */
const MAX_LEAD_MS = 250;

/**
 * The share of the gap between two fire times the previous job must have had when it is looked at
 * early: nearly what it has at the fire time, so that a consumer judged behind early would be judged
 * behind at the instant too, but for the last quarter of a gap.
 */
const JUDGED_AFTER = 0.75;

/**
 * Staging after an early backpressure look-up (`commitAhead`). An occurrence claimed while its
 * schedule's previous job was still young (staged or added a moment ago: see `holdBackAtClaim`) is
 * judged once that job has had its chance, half the gap between the two fire times. Held until its own
 * fire time for that, its look-up and its add would be on the burst's critical path, as they are for
 * every 1 s schedule claimed more than half a second ahead (a burst's claim horizon). So it is looked
 * at a lead before its fire time (the time recent claims took to plan and stage: what a burst needs to
 * be in BullMQ before its instant; at most `MAX_LEAD_MS`), and staged then if its consumer is not behind.
 * Only where the previous job has had three quarters of the gap by then (`JUDGED_AFTER`): a schedule
 * whose gap is shorter than four leads (under ~0.5-1 s) keeps the look-up at the fire time, where the
 * previous job had the whole gap: its item is held and judged at its fire time, as without `commitAhead`.
 */
export class RecheckAhead {
  /** Items waiting for their look-up, by the timer that starts it. */
  private readonly waiting = new Map<unknown, Item[]>();

  constructor(
    private readonly clock: RedisClock,
    private readonly timers: FireClock,
    /** Look the items up and stage those whose consumer is not behind (the enqueuer, with a `stagedAt`). */
    private readonly lookAndStage: (items: Item[], now: number) => void,
    /** Hold items for their fire time (the fire loop's pending occurrences). */
    private readonly hold: (items: Item[]) => void,
  ) {}

  get length(): number {
    let n = 0;
    for (const items of this.waiting.values()) n += items.length;
    return n;
  }

  /** The schedules of the items waiting. */
  ids(): string[] {
    return [...this.waiting.values()].flatMap((items) => items.map((i) => i.claim.id));
  }

  /** Take from `later` the items whose look-up can come `leadMs` ahead of their fire time, and arm it. */
  take(later: Item[], leadMs: number): void {
    const byTime = new Map<number, Item[]>();
    const kept: Item[] = [];
    for (const item of later) {
      const r = item.recheck;
      const lead = Math.min(MAX_LEAD_MS, Math.max(leadMs, STAGE_MIN_MS + LOOKUP_ROOM_MS + 50));
      const fireAt = fireTime(item);
      const at = fireAt - lead;
      if (
        r?.dueAt === undefined ||
        at < r.dueAt + Math.max(r.minWaitedMs, JUDGED_AFTER * (fireAt - r.dueAt))
      ) {
        kept.push(item);
      } else {
        const slot = Math.ceil(at / 10) * 10; // one look-up per 10 ms of a burst
        let list = byTime.get(slot);
        if (!list) byTime.set(slot, (list = []));
        list.push(item);
      }
    }
    if (kept.length === later.length) return;
    later.splice(0, later.length, ...kept);
    for (const [at, items] of byTime) {
      const timer = this.timers.setTimeout(
        () => {
          this.waiting.delete(timer);
          this.release(items);
        },
        Math.max(0, Math.ceil(this.clock.until(at))),
      );
      this.waiting.set(timer, items);
    }
  }

  /** Take out the items of a schedule (stopped): the ones taken. */
  drop(id: string): Item[] {
    const dropped: Item[] = [];
    for (const [timer, items] of this.waiting) {
      const keep = items.filter((i) => i.claim.id !== id);
      if (keep.length === items.length) continue;
      dropped.push(...items.filter((i) => i.claim.id === id));
      if (keep.length > 0) items.splice(0, items.length, ...keep);
      else {
        this.timers.clearTimeout(timer);
        this.waiting.delete(timer);
      }
    }
    return dropped;
  }

  /** At stop: every item still waiting is held for its fire time. */
  flush(): void {
    for (const [timer, items] of this.waiting) {
      this.timers.clearTimeout(timer);
      this.hold(items);
    }
    this.waiting.clear();
  }

  /** Their look-up time has come: stage them, but those too close to their fire time, which are held. */
  private release(items: Item[]): void {
    const now = Math.floor(this.clock.now());
    const close = items.filter((i) => fireTime(i) - now < STAGE_MIN_MS);
    const ahead = close.length === 0 ? items : items.filter((i) => fireTime(i) - now >= STAGE_MIN_MS);
    if (close.length > 0) this.hold(close);
    if (ahead.length > 0) this.lookAndStage(ahead, now);
  }
}
