import type { Redis } from 'ioredis';
import type { Keys } from '../src/scheduler/keys.js';
import { parseState } from '../src/scheduler/schedule-store.js';
import type { ScheduleStatus } from './schedule-view.js';

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
  /** How many schedules match the filter. */
  total: number;
}

/** Filter and page of a listing. */
export interface ListQuery {
  /** Case-insensitive substring of the id, name or queue. */
  q?: string;
  status?: ScheduleStatus;
  queue?: string;
  offset: number;
  limit: number;
}

const STATUS: Record<string, ScheduleStatus> = { a: 'active', p: 'paused', o: 'paused', c: 'completed' };

/**
 * The ordered list of every schedule (by name, then id), read from the `schedules` and `state`
 * hashes in one round trip and reused for `cacheMs`, so that paging and searching 10,000 schedules
 * costs one scan of an in-memory array; only the rows of the page are then read in full. Writes made
 * through the dashboard invalidate it at once; other writers' changes show within `cacheMs`.
 */
export class ScheduleIndex {
  private entries: IndexEntry[] | null = null;
  private loadedAt = 0;
  private loading: Promise<IndexEntry[]> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  invalidate(): void {
    this.entries = null;
  }

  async all(): Promise<IndexEntry[]> {
    if (this.entries && this.now() - this.loadedAt < this.cacheMs) return this.entries;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<IndexEntry[]> {
    const started = this.now();
    const res = (await this.redis.multi().hgetall(this.keys.schedules).hgetall(this.keys.state).exec()) ?? [];
    const defs = (res[0]?.[1] ?? {}) as Record<string, string>;
    const states = (res[1]?.[1] ?? {}) as Record<string, string>;
    const entries: IndexEntry[] = [];
    for (const [id, json] of Object.entries(defs)) {
      const state = parseState(states[id]);
      if (!state) continue;
      let name = id;
      let queue = '';
      try {
        const def = JSON.parse(json) as { name?: unknown; queue?: unknown };
        name = typeof def.name === 'string' ? def.name : id;
        queue = typeof def.queue === 'string' ? def.queue : '';
      } catch {
        // a definition we cannot read still gets listed under its id
      }
      entries.push({
        id,
        name,
        queue,
        status: STATUS[state.status] ?? 'active',
        haystack: `${id}\n${name}\n${queue}`.toLowerCase(),
      });
    }
    entries.sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    this.entries = entries;
    this.loadedAt = started;
    return entries;
  }

  async page(query: ListQuery): Promise<IndexPage> {
    const all = await this.all();
    const q = query.q?.trim().toLowerCase() ?? '';
    const matches = all.filter(
      (e) =>
        (q === '' || e.haystack.includes(q)) &&
        (query.status === undefined || e.status === query.status) &&
        (query.queue === undefined || e.queue === query.queue),
    );
    return {
      ids: matches.slice(query.offset, query.offset + query.limit).map((e) => e.id),
      total: matches.length,
    };
  }

  /** Schedules per status (for `/metrics` and the stats strip). */
  async statusCounts(): Promise<Record<ScheduleStatus, number>> {
    const out: Record<ScheduleStatus, number> = { active: 0, paused: 0, completed: 0, cancelled: 0 };
    for (const e of await this.all()) out[e.status]++;
    return out;
  }

  /** Every queue a schedule targets, sorted. */
  async queues(): Promise<string[]> {
    return [...new Set((await this.all()).map((e) => e.queue).filter((q) => q !== ''))].sort();
  }
}
