import type { Redis } from 'ioredis';
import { parseState, type ScheduleStatus, statusOf } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { type ListCounts, ScheduleScripts } from '../scripts/index.js';
import { compareMembers, ListWalk } from './list-walk.js';
import { checkListIndexes } from './name-index.js';

/**
 * The filtered list (by status, queue, search text), paged from the list indexes (includes/names: per
 * partition, `<name>\0<id>` sorted sets of each queue's schedules and of each status but active, kept by
 * the scripts that change the fact they index). A page walks, per partition, the narrowest index the
 * filter names (the queue's, else the status's, else every queue's merged: `ListWalk`), in steps from
 * about the page's size doubling to at most `STEP_MAX` members, tests each step's members against the
 * rest of the filter (the search text against the member's name, id and queue, membership of the status
 * indexes by `ZMSCORE`), and stops once it holds the page's end; the partitions' matches are merged. It
 * never reads a definition or a state row but the page's own (checked against the filter: one an earlier
 * release changed is repaired and left out).
 *
 * `total` comes from the indexes' counts when the filter is one index (a status, a queue, or none);
 * otherwise the walk counts on past the page's end, at most `COUNT_BUDGET` members per partition, and a
 * walk that stopped there answers the count so far with `totalAtLeast`.
 */

/** A status with an index of its own (an active schedule is in none of them). */
export type IndexedStatus = 'paused' | 'completed' | 'errored';
const INDEXED_STATUSES: readonly IndexedStatus[] = ['paused', 'completed', 'errored'];

/** The filter of a page. */
export interface ListFilter {
  status?: ScheduleStatus;
  queue?: string;
  /** Case-insensitive substring of the id, name or queue. */
  search?: string;
}

/** One page of the filtered list. */
export interface ListIndexPage {
  /** By name, then id (UTF-8 byte order, as Redis compares). */
  ids: string[];
  /** How many schedules match (with `totalAtLeast`: at least this many). */
  total: number;
  /** `total` is a lower bound: the count stopped at `COUNT_BUDGET` members read per partition. */
  totalAtLeast?: true;
  /** How many index members the page read (over every partition). */
  read: number;
}

/** The most members one step of a walk takes from one partition's indexes. */
export const STEP_MAX = 1000;
/** The most members a walk reads per partition to count a filter past its page (then `totalAtLeast`). */
export const COUNT_BUDGET = 20_000;

/** `<name>\0<id>` split at its last NUL (an id holds none). */
function splitMember(member: string): { name: string; id: string } {
  const cut = member.lastIndexOf('\0');
  return { name: member.slice(0, cut), id: member.slice(cut + 1) };
}

/** The index a status filter walks or tests (`cancelled` is answered before: never stored). */
function indexedStatus(status: ScheduleStatus | undefined): IndexedStatus | 'active' | undefined {
  if (status === undefined || status === 'active') return status;
  return status as IndexedStatus;
}

/**
 * Per partition: which members of a step pass the filter's tests beyond the walked index (`queues`: the
 * queue each member's index is, when the walk merges queue indexes).
 */
type Test = (k: Keys, members: string[], queues: readonly (string | undefined)[]) => Promise<boolean[]>;

/**
 * The page `offset` .. `offset + limit` of the schedules matching `filter`, by name then id. A filter of
 * status `cancelled` (never stored: a removed schedule is gone) matches none. `countBudget`: the entries
 * a walk reads per partition to count past the page (`COUNT_BUDGET`).
 */
export async function listIndexPage(
  redis: Redis,
  keys: Keys,
  filter: ListFilter,
  offset: number,
  limit: number,
  countBudget = COUNT_BUDGET,
): Promise<ListIndexPage> {
  if (filter.status === 'cancelled') return { ids: [], total: 0, read: 0 };
  const counts = await checkListIndexes(redis, keys);
  const q = filter.search?.trim().toLowerCase() ?? '';
  const status = indexedStatus(filter.status);
  const queue = filter.queue;
  // the indexes walked: the queue's, else the status's, else every queue's (merged)
  const source = (k: Keys): ListWalk =>
    queue !== undefined
      ? new ListWalk(redis, [{ key: k.queueNames(queue), tag: queue }])
      : status !== undefined && status !== 'active'
        ? new ListWalk(redis, [{ key: k.statusNames(status), tag: undefined }])
        : ListWalk.ofQueues(redis, k);
  const tests: Test[] = [];
  if (status !== undefined && (queue !== undefined || status === 'active'))
    tests.push(statusTest(redis, status));
  if (q !== '') tests.push(await searchTest(redis, keys, q, queue));
  const need = offset + limit;
  const countedByIndex = q === '' && (queue === undefined || status === undefined);

  const walks = await Promise.all(
    keys.all().map((k) => walk(k, source(k), tests, need, countedByIndex ? need : countBudget)),
  );
  const merged = walks.flatMap((w) => w.matches.slice(0, need)).sort(compareMembers);
  let ids = merged.slice(offset, offset + limit).map((m) => splitMember(m).id);
  ids = await checkedRows(redis, keys, ids, merged.slice(offset, offset + limit), filter, status);
  const read = walks.reduce((a, w) => a + w.read, 0);
  if (countedByIndex) {
    const total =
      queue !== undefined
        ? await queueCount(redis, keys, queue)
        : counts.reduce((a, c) => a + countOf(c, status), 0);
    return { ids, total, read };
  }
  const total = walks.reduce((a, w) => a + w.matches.length, 0);
  const atLeast = walks.some((w) => !w.done);
  return { ids, total, ...(atLeast && { totalAtLeast: true as const }), read };
}

/**
 * Walk one partition's index or indexes (`source`, merged) from their start: its matches until `want`
 * (and the walk's end or `budget` members taken).
 */
async function walk(
  k: Keys,
  source: ListWalk,
  tests: readonly Test[],
  want: number,
  budget: number,
): Promise<{ matches: string[]; read: number; done: boolean }> {
  const matches: string[] = [];
  let taken = 0;
  // untested: exactly what the page needs; tested: from about the page's size, doubling to STEP_MAX
  let step =
    tests.length === 0 ? Math.max(1, Math.min(want, STEP_MAX)) : Math.min(Math.max(want, 64), STEP_MAX);
  for (; ; step = Math.min(step * 2, STEP_MAX)) {
    const { members, tags, done } = await source.take(step);
    taken += members.length;
    let pass = members.map(() => true);
    for (const test of tests) {
      const more = await test(k, members, tags);
      pass = pass.map((p, i) => p && more[i]!);
    }
    members.forEach((m, i) => {
      if (pass[i]) matches.push(m);
    });
    if (done) return { matches, read: source.read, done: true };
    if (matches.length >= want && taken >= budget) return { matches, read: source.read, done: false };
  }
}

/** A member passes when it is (status) in that status's index, or (active) in none of them. */
function statusTest(redis: Redis, status: IndexedStatus | 'active'): Test {
  return async (k, members) => {
    if (members.length === 0) return [];
    if (status !== 'active') {
      const scores = await redis.zmscore(k.statusNames(status), ...members);
      return scores.map((s) => s !== null);
    }
    const pipe = redis.pipeline();
    for (const s of INDEXED_STATUSES) pipe.zmscore(k.statusNames(s), ...members);
    const res = (await pipe.exec()) ?? [];
    return members.map((_, i) => res.every((r) => ((r[1] as (string | null)[]) ?? [])[i] === null));
  };
}

/**
 * A member passes when its name or id holds `q`, or its queue does: the queue of the index it was walked
 * in, or, walking a status index, membership of an index of a queue whose name holds `q` (the
 * partition's queues read once per page).
 */
async function searchTest(redis: Redis, keys: Keys, q: string, queue: string | undefined): Promise<Test> {
  if (queue?.toLowerCase().includes(q)) return async (_k, members) => members.map(() => true);
  const matchingQueues = new Map<number, string[]>();
  if (queue === undefined) {
    await Promise.all(
      keys.all().map(async (k) => {
        const queues = await redis.smembers(k.queues);
        matchingQueues.set(
          k.index,
          queues.filter((name) => name.toLowerCase().includes(q)),
        );
      }),
    );
  }
  return async (k, members, tags) => {
    const pass = members.map((m, i) => {
      const { name, id } = splitMember(m);
      const tag = tags[i];
      return (
        name.toLowerCase().includes(q) ||
        id.toLowerCase().includes(q) ||
        tag?.toLowerCase().includes(q) === true
      );
    });
    const queues = matchingQueues.get(k.index) ?? [];
    // members walked in a queue's index were tested against its name just now
    const rest = members.filter((_, i) => !pass[i] && tags[i] === undefined);
    if (queues.length === 0 || rest.length === 0) return pass;
    const inQueue = new Set<string>();
    for (const name of queues) {
      const scores = await redis.zmscore(k.queueNames(name), ...rest);
      rest.forEach((m, i) => {
        if (scores[i] !== null) inQueue.add(m);
      });
    }
    return members.map((m, i) => pass[i]! || inQueue.has(m));
  };
}

/** One queue's schedules over every partition. */
async function queueCount(redis: Redis, keys: Keys, queue: string): Promise<number> {
  const counts = await Promise.all(keys.all().map((k) => redis.zcard(k.queueNames(queue))));
  return counts.reduce((a, b) => a + b, 0);
}

/** A partition's schedules in a status (active: in none of the status indexes; undefined: all). */
function countOf(c: ListCounts, status: IndexedStatus | 'active' | undefined): number {
  if (status === undefined) return c.listed;
  if (status !== 'active') return c.byStatus[status];
  return c.listed - c.byStatus.paused - c.byStatus.completed - c.byStatus.errored;
}

/**
 * The page's ids whose stored definition and state still match the filter (read by partition: the
 * page's rows only). One that does not (an earlier release changed its status or queue, which kept no
 * index) is left out and its entries repaired (`repair-index-3`); one removed meanwhile is left out.
 */
async function checkedRows(
  redis: Redis,
  keys: Keys,
  ids: string[],
  members: string[],
  filter: ListFilter,
  status: IndexedStatus | 'active' | undefined,
): Promise<string[]> {
  if (ids.length === 0 || (status === undefined && filter.queue === undefined)) return ids;
  const byPart = new Map<number, number[]>();
  ids.forEach((id, i) => {
    const p = keys.partitionOf(id);
    const list = byPart.get(p) ?? [];
    list.push(i);
    byPart.set(p, list);
  });
  const stale = new Set<number>();
  const scripts = new ScheduleScripts(redis);
  await Promise.all(
    [...byPart].map(async ([p, at]) => {
      const k = keys.partition(p);
      const part = at.map((i) => ids[i]!);
      const res =
        (await redis
          .pipeline()
          .hmget(k.schedules, ...part)
          .hmget(k.state, ...part)
          .exec()) ?? [];
      const defs = (res[0]?.[1] ?? []) as (string | null)[];
      const states = (res[1]?.[1] ?? []) as (string | null)[];
      const repair: string[] = [];
      at.forEach((i, j) => {
        const def = defs[j];
        const state = parseState(states[j] ?? undefined);
        const shown = state ? statusOf(state) : undefined;
        const queueOk =
          filter.queue === undefined || (def !== null && def !== undefined && queueOf(def) === filter.queue);
        const statusOk = status === undefined || shown === status;
        if (def && state && queueOk && statusOk) return;
        stale.add(i);
        if (filter.queue !== undefined) repair.push(`q${filter.queue}\0${members[i]!}`);
        repair.push(def ? `i${ids[i]!}` : `m${members[i]!}`);
      });
      if (repair.length > 0) await scripts.repairIndex(k, repair);
    }),
  );
  return ids.filter((_, i) => !stale.has(i));
}

function queueOf(defJSON: string): string {
  try {
    const def = JSON.parse(defJSON) as { queue?: unknown };
    return typeof def.queue === 'string' ? def.queue : '';
  } catch {
    return '';
  }
}

/** Schedules per status, from the indexes' counts (active: every schedule in none of the others). */
export async function indexedStatusCounts(redis: Redis, keys: Keys): Promise<Record<ScheduleStatus, number>> {
  const counts = await checkListIndexes(redis, keys);
  const sum = (status: IndexedStatus | 'active') => counts.reduce((a, c) => a + countOf(c, status), 0);
  return {
    active: sum('active'),
    paused: sum('paused'),
    completed: sum('completed'),
    cancelled: 0,
    errored: sum('errored'),
  };
}

/** Every queue a schedule targets, sorted (from the partitions' sets of queues; '' left out). */
export async function indexedQueues(redis: Redis, keys: Keys): Promise<string[]> {
  await checkListIndexes(redis, keys);
  const sets = await Promise.all(keys.all().map((k) => redis.smembers(k.queues)));
  return [...new Set(sets.flat())].filter((q) => q !== '').sort();
}
