import type { Redis } from 'ioredis';
import { parseState, type ScheduleStatus, statusOf } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';
import { checkNameIndex } from './name-index.js';

/**
 * The filtered list (by status, queue, search text), paged from the list indexes (includes/names: per
 * partition, `<name>\0<id>` sorted sets of every schedule, of each queue's and of each status but
 * active, kept by the scripts that change the fact they index). A page walks one index per partition,
 * the narrowest the filter names (the queue's, else the status's, else the names), in steps from about
 * the page's size doubling to at most `STEP_MAX` members (`ZRANGE ... BYLEX ... LIMIT`), tests each step's members against the rest of the
 * filter (the search text against the member's name and id, membership of the status and queue indexes
 * by `ZMSCORE`), and stops once it holds the page's end; the partitions' matches are merged. It never
 * reads a definition or a state row but the page's own (checked against the filter: one an earlier
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

/** The most members one step of a walk reads from one partition's index. */
export const STEP_MAX = 1000;
/** The most members a walk reads per partition to count a filter past its page (then `totalAtLeast`). */
export const COUNT_BUDGET = 20_000;

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

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

/** Per partition: which members of a step pass the filter's tests beyond the walked index. */
type Test = (k: Keys, members: string[]) => Promise<boolean[]>;

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
  await checkNameIndex(redis, keys);
  const q = filter.search?.trim().toLowerCase() ?? '';
  const status = indexedStatus(filter.status);
  const queue = filter.queue;
  // the index walked: the queue's, else the status's, else every schedule's
  const source = (k: Keys) =>
    queue !== undefined
      ? k.queueNames(queue)
      : status !== undefined && status !== 'active'
        ? k.statusNames(status)
        : k.names;
  const tests: Test[] = [];
  if (status !== undefined && (queue !== undefined || status === 'active'))
    tests.push(statusTest(redis, status));
  if (q !== '') tests.push(await searchTest(redis, keys, q, queue));
  const need = offset + limit;
  const countedByIndex = q === '' && (queue === undefined || status === undefined);

  const walks = await Promise.all(
    keys.all().map((k) => walk(redis, k, source(k), tests, need, countedByIndex ? need : countBudget)),
  );
  const merged = walks.flatMap((w) => w.matches.slice(0, need)).sort(byBytes);
  let ids = merged.slice(offset, offset + limit).map((m) => splitMember(m).id);
  ids = await checkedRows(redis, keys, ids, merged.slice(offset, offset + limit), filter, status);
  const read = walks.reduce((a, w) => a + w.read, 0);
  if (countedByIndex) {
    return { ids, total: await indexCount(redis, keys, source, status, queue), read };
  }
  const total = walks.reduce((a, w) => a + w.matches.length, 0);
  const atLeast = walks.some((w) => !w.done);
  return { ids, total, ...(atLeast && { totalAtLeast: true as const }), read };
}

/** Walk one partition's index from its start: its matches until `want` (and the walk's end or `budget` read). */
async function walk(
  redis: Redis,
  k: Keys,
  key: string,
  tests: readonly Test[],
  want: number,
  budget: number,
): Promise<{ matches: string[]; read: number; done: boolean }> {
  const matches: string[] = [];
  let read = 0;
  let from = '-';
  // untested: exactly what the page needs; tested: from about the page's size, doubling to STEP_MAX
  let step =
    tests.length === 0 ? Math.max(1, Math.min(want, STEP_MAX)) : Math.min(Math.max(want, 64), STEP_MAX);
  for (; ; step = Math.min(step * 2, STEP_MAX)) {
    const members = await redis.zrangebylex(key, from, '+', 'LIMIT', 0, step);
    read += members.length;
    let pass = members.map(() => true);
    for (const test of tests) {
      const more = await test(k, members);
      pass = pass.map((p, i) => p && more[i]!);
    }
    members.forEach((m, i) => {
      if (pass[i]) matches.push(m);
    });
    if (members.length < step) return { matches, read, done: true };
    if (matches.length >= want && read >= budget) return { matches, read, done: false };
    from = `(${members.at(-1)!}`;
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
 * A member passes when its name or id holds `q`, or its queue does: the walked queue's name (`queue`),
 * or, walking another index, membership of an index of a queue whose name holds `q` (the partition's
 * queues read once per page).
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
  return async (k, members) => {
    const pass = members.map((m) => {
      const { name, id } = splitMember(m);
      return name.toLowerCase().includes(q) || id.toLowerCase().includes(q);
    });
    const queues = matchingQueues.get(k.index) ?? [];
    const rest = members.filter((_, i) => !pass[i]);
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

/** The count of a filter that is one index: its members, over every partition (active: the rest). */
async function indexCount(
  redis: Redis,
  keys: Keys,
  source: (k: Keys) => string,
  status: IndexedStatus | 'active' | undefined,
  queue: string | undefined,
): Promise<number> {
  const counts = await Promise.all(
    keys.all().map(async (k) => {
      if (status !== 'active' || queue !== undefined) return redis.zcard(source(k));
      return (await partitionStatusCounts(redis, k)).active;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * One partition's schedules per indexed status, and active ones (in none of those indexes): one
 * pipeline of `ZCARD`s of the name index and the status indexes.
 */
async function partitionStatusCounts(
  redis: Redis,
  k: Keys,
): Promise<{ active: number; byStatus: readonly number[] }> {
  const res =
    (await INDEXED_STATUSES.reduce(
      (p, s) => p.zcard(k.statusNames(s)),
      redis.pipeline().zcard(k.names),
    ).exec()) ?? [];
  const [all = 0, ...byStatus] = res.map((r) => Number(r[1] ?? 0));
  return { active: all - byStatus.reduce((a, b) => a + b, 0), byStatus };
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
  await checkNameIndex(redis, keys);
  const out: Record<ScheduleStatus, number> = {
    active: 0,
    paused: 0,
    completed: 0,
    cancelled: 0,
    errored: 0,
  };
  await Promise.all(
    keys.all().map(async (k) => {
      const { active, byStatus } = await partitionStatusCounts(redis, k);
      INDEXED_STATUSES.forEach((s, i) => {
        out[s] += byStatus[i] ?? 0;
      });
      out.active += active;
    }),
  );
  return out;
}

/** Every queue a schedule targets, sorted (from the partitions' sets of queues; '' left out). */
export async function indexedQueues(redis: Redis, keys: Keys): Promise<string[]> {
  await checkNameIndex(redis, keys);
  const sets = await Promise.all(keys.all().map((k) => redis.smembers(k.queues)));
  return [...new Set(sets.flat())].filter((q) => q !== '').sort();
}
