import type { Keys } from '../../store/index.js';
import { occurrenceField, occurrenceJobId } from '../../store/index.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Item } from './fire-loop-types.js';

// Parking: a schedule whose occurrence backpressure coalesced because its previous job still waits in
// its queue is not claimed, planned, looked up and completed again each period while that job waits.
// The fire loop walks its next few occurrences once and parks it (`<due>:park`); the claim script then
// coalesces each of them in Redis, as the fire loop would, while the job still waits (claim-6.lua), and
// hands the schedule back to the fire loop once the job is taken, gone, or the walked times run out.
// BullMQ's job schedulers make no next job until the previous one is taken; this is the same economy
// with every occurrence still counted and recorded.

/** How many next occurrences a park walks: the claim script coalesces up to this many, then the fire loop plans again. */
export const PARK_AHEAD = 8;
/** How far ahead a park's walk goes at most (ms): a calendar changed meanwhile counts at most this long. */
export const PARK_HORIZON_MS = 60_000;

/**
 * A park entry, as claim-6.lua reads it (JSON): the due time it holds for (`e`), the next times to move
 * the schedule to (`t`), the timing fingerprint they were walked on (`p`, its state's), the waiting
 * job's hash (`j`), its fire time (`w`) and record (`r`), the span it stands for so far (`f` first, `n`
 * count), the schedule's counters (`c`), and the history limit (`h`).
 */
export interface ParkEntry {
  e: number;
  t: number[];
  p: string;
  j: string;
  w: number;
  r: string;
  f: number;
  n: number;
  c: string;
  h: number;
}

/**
 * The park entry of a completed item, or undefined: only an occurrence coalesced over a waiting job
 * (`consumer-behind`) whose schedule has a next time and more after it. `jobKey` gives a job id's
 * hash key in the schedule's queue; each step of the walk has the trigger's time budget (`budgetMs`).
 */
export function parkEntry(
  item: Item,
  keys: Keys,
  historyLimit: number,
  jobKey: (jobId: string) => string,
  now: number,
  budgetMs?: number,
): ParkEntry | undefined {
  const { plan } = item;
  const c = plan.coalesced;
  const fingerprint = item.claim.state?.fingerprint;
  if (c?.cause !== 'consumer-behind' || plan.enqueue || plan.next === null || fingerprint === undefined)
    return undefined;
  const { def, trigger } = item.cached;
  const t: number[] = [];
  try {
    for (let o: number | null = plan.next; t.length < PARK_AHEAD - 1; ) {
      o = checkedNextFire(trigger, o, now, budgetMs);
      if (o === null || (def.endAt !== undefined && o > def.endAt) || o > now + PARK_HORIZON_MS) break;
      t.push(o);
    }
  } catch {
    // a trigger that throws (or overruns its budget) further on: park up to there (the fire loop's
    // next plan meets it)
  }
  if (t.length === 0) return undefined;
  const waiting = c.standIn;
  return {
    e: plan.next,
    t,
    p: fingerprint,
    j: jobKey(occurrenceJobId(def.id, waiting)),
    w: waiting,
    r: keys.record(def.id, occurrenceField(waiting)),
    f: c.span.from,
    n: c.span.count,
    c: keys.counts(def.id),
    h: historyLimit,
  };
}
