import type { Redis } from 'ioredis';
import type { ScheduleStatus } from '../forms/index.js';
import { parseSelector, parseState, peekNameAndQueue, statusOf } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { selectIds } from './label-index.js';
import { indexedQueues, indexedStatusCounts, listIndexPage } from './list-index.js';
import type { ListQuery } from './schedule-listing.js';

/** What a selector's page filters and orders its schedules by. */
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
 * The list's pages, counts per status and queues (the dashboard, the API, `listPage` with a filter), read
 * from Redis at each call: a page by status, queue or search from the list indexes (`list-index.ts`: what
 * the page needs, never every schedule), a selector's page from the label index (what it selects), the
 * counts and the queues from the indexes' counts and sets. Nothing is kept between calls, so a change by
 * any writer shows at the next read.
 */
export class ScheduleIndex {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

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
