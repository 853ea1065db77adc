import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { occurrenceJobId } from '../../store/job-payload.js';
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

/** How far past Redis's clock `unstage` looks for staged jobs (ms): beyond any claim horizon. */
const UNSTAGE_WINDOW_MS = 60_000;

/**
 * Atomic with BullMQ's promotion (a script too): a staged job still in `delayed` is removed (job hash,
 * logs, a `removed` event); one promoted already is not touched (it was due: it runs).
 * KEYS[1] delayed, KEYS[2] events; ARGV[1] the queue's key prefix (`bull:<queue>:`), ARGV[2] the job id
 * prefix of the schedule's occurrences, ARGV[3] window (ms), ARGV[4] one fire time only ('' = every).
 * Returns the fire times removed.
 */
const UNSTAGE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local from, to = now * 4096, (now + tonumber(ARGV[3]) + 1) * 4096 - 1
local members = redis.call('ZRANGEBYSCORE', KEYS[1], from, to, 'WITHSCORES')
local prefix, n, out = ARGV[2], #ARGV[2], {}
for i = 1, #members, 2 do
  local id = members[i]
  if string.sub(id, 1, n) == prefix then
    local rest = string.sub(id, n + 1)
    if string.match(rest, '^%d+$') and (ARGV[4] == '' or rest == ARGV[4])
      and tonumber(rest) == math.floor(tonumber(members[i + 1]) / 4096) then
      redis.call('ZREM', KEYS[1], id)
      redis.call('DEL', ARGV[1] .. id, ARGV[1] .. id .. ':logs')
      redis.call('XADD', KEYS[2], 'MAXLEN', '~', 10000, '*', 'event', 'removed', 'jobId', id, 'prev', 'delayed')
      out[#out + 1] = rest
    end
  end
end
return out
`;

/**
 * Remove the staged jobs of a schedule (or only its occurrence at `fireAt`) from `queue`, if BullMQ has
 * not promoted them yet. Returns their fire times. A pause, a removal or an update calls it after its
 * own write, and a replica that staged an occurrence of a schedule stopped meanwhile calls it too.
 */
export async function unstage(queue: Queue, scheduleId: string, fireAt?: number): Promise<number[]> {
  // BullMQ's Redis backend hands out its ioredis client
  const client = (await queue.getBackend().client) as unknown as Redis;
  const all = occurrenceJobId(scheduleId, 0);
  const prefix = all.slice(0, all.length - 1); // `bb-<id>-`
  const removed = (await client.eval(
    UNSTAGE_LUA,
    2,
    queue.keys.delayed!,
    queue.keys.events!,
    queue.toKey(''),
    prefix,
    String(UNSTAGE_WINDOW_MS),
    fireAt === undefined ? '' : String(fireAt),
  )) as string[];
  return removed.map(Number);
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
): Promise<number[]> {
  const removed = await unstage(queue, scheduleId, fireAt);
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
  private timer: NodeJS.Timeout | undefined;
  private drained: (() => void) | undefined;

  constructor(private readonly until: (at: number) => number) {}

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
    if (this.timer) clearTimeout(this.timer);
    const first = this.queue[0];
    this.timer = first
      ? setTimeout(() => this.tick(), Math.max(0, Math.ceil(this.until(first.fireAt))))
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const d = this.drained;
    this.drained = undefined;
    d?.();
  }
}
