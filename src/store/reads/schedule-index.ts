import type { Redis } from 'ioredis';
import type { ScheduleStatus } from '../forms/index.js';
import { parseSelector, parseState, peekNameAndQueue, statusOf } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { selectIds } from './label-index.js';
import { indexedQueues, indexedStatusCounts, listIndexPage } from './list-index.js';
import type { ListQuery } from './schedule-listing.js';

/** What the list needs to filter and order every schedule without reading their full records. */
interface IndexEntry {
  id: string;
  name: string;
  queue: string;
  status: ScheduleStatus;
  /** Lower-cased `id name queue`, for search. */
  haystack: string;
}

/** One page of the filtered list. */
export interface IndexPage {
  ids: string[];
  /** How many schedules match the filter (with `totalAtLeast`: at least this many). */
  total: number;
  /** `total` is a lower bound (a search counted up to a budget: `list-index.ts`). */
  totalAtLeast?: true;
}

const byName = (a: IndexEntry, b: IndexEntry) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The dashboard's list: a page, the counts per status and the queues are read from the list indexes
 * (`list-index.ts`: what the page needs, never every schedule); a selector's page from the label index
 * (what it selects). `all()`, the ordered list of every schedule (by name, then id) kept in memory, is
 * what the deployment's health reads (it reads every active schedule's records anyway).
 *
 * A full load reads the `schedules` and `state` hashes (~2 MB for 10,000 schedules). After that,
 * every `cacheMs` only the small `state` hash is read again: statuses change, removed schedules
 * drop out and new ones have their definitions fetched. Names and queues of existing schedules are
 * re-read by a full load every `fullReloadMs`; writes made through the dashboard call `invalidate()`
 * so that they show at once.
 */
export class ScheduleIndex {
  private entries: IndexEntry[] | null = null;
  private byId = new Map<string, IndexEntry>();
  private checkedAt = 0;
  private fullAt = 0;
  private loading: Promise<IndexEntry[]> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
    private readonly fullReloadMs = 60_000,
  ) {}

  /**
   * Make the next read go to Redis: statuses, new and removed schedules (cheap), or everything,
   * names and queues included, with `full` (after an update that may rename).
   */
  invalidate(options: { full?: boolean } = {}): void {
    if (options.full) this.entries = null;
    else this.checkedAt = Number.NEGATIVE_INFINITY;
  }

  async all(): Promise<IndexEntry[]> {
    const now = this.now();
    if (this.entries && now - this.checkedAt < this.cacheMs) return this.entries;
    this.loading ??= (
      this.entries && now - this.fullAt < this.fullReloadMs ? this.refresh() : this.load()
    ).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private entry(id: string, json: string, code: string | undefined): IndexEntry | undefined {
    const state = parseState(code);
    if (!state) return undefined;
    const { name, queue } = peekNameAndQueue(id, json);
    return {
      id,
      name,
      queue,
      status: statusOf(state),
      haystack: `${id}\n${name}\n${queue}`.toLowerCase(),
    };
  }

  private async load(): Promise<IndexEntry[]> {
    const started = this.now();
    // one pipeline per partition (a cluster pipeline stays within one slot)
    const parts = await Promise.all(
      this.keys
        .all()
        .map(async (k) => (await this.redis.pipeline().hgetall(k.schedules).hgetall(k.state).exec()) ?? []),
    );
    const defs: Record<string, string> = {};
    const states: Record<string, string> = {};
    for (const res of parts) {
      Object.assign(defs, res[0]?.[1] ?? {});
      Object.assign(states, res[1]?.[1] ?? {});
    }
    const entries: IndexEntry[] = [];
    for (const [id, json] of Object.entries(defs)) {
      const e = this.entry(id, json, states[id]);
      if (e) entries.push(e);
    }
    entries.sort(byName);
    this.byId = new Map(entries.map((e) => [e.id, e]));
    this.entries = entries;
    this.checkedAt = started;
    this.fullAt = started;
    return entries;
  }

  /** Re-read statuses; drop removed schedules; fetch the definitions of new ones. */
  private async refresh(): Promise<IndexEntry[]> {
    const started = this.now();
    const states: Record<string, string> = Object.assign(
      {},
      ...(await Promise.all(this.keys.all().map((k) => this.redis.hgetall(k.state)))),
    );
    const fresh = Object.keys(states).filter((id) => !this.byId.has(id));
    const defs = await Promise.all(fresh.map((id) => this.redis.hget(this.keys.of(id).schedules, id)));
    let changed = fresh.length > 0;
    const next: IndexEntry[] = [];
    for (const e of this.entries ?? []) {
      const state = parseState(states[e.id]);
      if (!state) {
        changed = true;
        this.byId.delete(e.id);
        continue;
      }
      const status = statusOf(state);
      next.push(status === e.status ? e : { ...e, status });
    }
    fresh.forEach((id, i) => {
      const json = defs[i];
      const e = json ? this.entry(id, json, states[id]) : undefined;
      if (e) next.push(e);
    });
    if (changed) next.sort(byName);
    for (const e of next) this.byId.set(e.id, e);
    this.entries = next;
    this.checkedAt = started;
    return next;
  }

  async page(query: ListQuery): Promise<IndexPage> {
    if (query.selector === undefined) {
      const page = await listIndexPage(
        this.redis,
        this.keys,
        {
          ...(query.status !== undefined && { status: query.status }),
          ...(query.queue !== undefined && { queue: query.queue }),
          ...(query.search !== undefined && { search: query.search }),
        },
        query.offset ?? 0,
        query.limit ?? Number.MAX_SAFE_INTEGER,
      );
      return { ids: page.ids, total: page.total, ...(page.totalAtLeast && { totalAtLeast: true }) };
    }
    const all = await this.entriesOf(await selectIds(this.redis, this.keys, parseSelector(query.selector)));
    const q = query.search?.trim().toLowerCase() ?? '';
    const matches = all.filter(
      (e) =>
        (q === '' || e.haystack.includes(q)) &&
        (query.status === undefined || e.status === query.status) &&
        (query.queue === undefined || e.queue === query.queue),
    );
    return {
      ids: matches
        .slice(query.offset ?? 0, query.limit === undefined ? undefined : (query.offset ?? 0) + query.limit)
        .map((e) => e.id),
      total: matches.length,
    };
  }

  /**
   * The entries of the ids a selector picked, read from Redis now (their definitions and states, by
   * partition, 1,000 ids a command), in list order: a selector costs what it selects, not a load of every
   * schedule.
   */
  private async entriesOf(ids: readonly string[]): Promise<IndexEntry[]> {
    const byPartition = new Map<number, string[]>();
    for (const id of ids) {
      const p = this.keys.partitionOf(id);
      const list = byPartition.get(p) ?? [];
      list.push(id);
      byPartition.set(p, list);
    }
    const entries: IndexEntry[] = [];
    for (const [p, list] of byPartition) {
      const k = this.keys.partition(p);
      for (let i = 0; i < list.length; i += 1000) {
        const chunk = list.slice(i, i + 1000);
        const res =
          (await this.redis
            .pipeline()
            .hmget(k.schedules, ...chunk)
            .hmget(k.state, ...chunk)
            .exec()) ?? [];
        const defs = (res[0]?.[1] ?? []) as (string | null)[];
        const states = (res[1]?.[1] ?? []) as (string | null)[];
        chunk.forEach((id, j) => {
          const json = defs[j];
          const e = json ? this.entry(id, json, states[j] ?? undefined) : undefined;
          if (e) entries.push(e);
        });
      }
    }
    return entries.sort(byName);
  }

  /** Schedules per status (for `/metrics` and the stats strip), from the status indexes' counts. */
  statusCounts(): Promise<Record<ScheduleStatus, number>> {
    return indexedStatusCounts(this.redis, this.keys);
  }

  /** Every queue a schedule targets, sorted (from the partitions' sets of queues). */
  queues(): Promise<string[]> {
    return indexedQueues(this.redis, this.keys);
  }
}
