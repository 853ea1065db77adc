import type { Redis } from 'ioredis';
import { CalendarError } from '../../errors/index.js';
import type { CalendarSpec } from '../../triggers/business-calendar.js';
import type { AuditActor } from '../forms/index.js';
import {
  type CalendarChange,
  type CalendarOrigin,
  decodeCalendar,
  encodeCalendar,
  type StoredCalendar,
} from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** Changes kept in each calendar's audit trail. */
export const CALENDAR_AUDIT_LIMIT = 100;
/** How many times a define retries when another one wrote the calendar between its read and write. */
const WRITE_ATTEMPTS = 10;

/** What `define` did: a new version, or nothing (the same content as the current version). */
export interface CalendarWrite {
  calendar: StoredCalendar;
  changed: boolean;
  /** The version replaced (absent for a first definition or an unchanged one). */
  before?: StoredCalendar;
}

/**
 * Named calendars in Redis, deployment-wide: the current version of each (`keys.calendars`), its
 * version number apart (`keys.calendarVersions`, what a replica checks before it plans) and its audit
 * trail (`keys.calendarAudit(name)`). A change is one transaction over those three keys, whatever
 * number of schedules use the calendar: they read it by name.
 */
export class CalendarStore {
  constructor(
    readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  /**
   * Write a new version of `name` (1 when it is new) with its audit entry, unless `spec` equals the
   * current version's. Optimistic: retried when another writer changed it meanwhile.
   */
  async define(
    name: string,
    spec: CalendarSpec,
    origin: CalendarOrigin,
    by: AuditActor,
  ): Promise<CalendarWrite> {
    const k = this.keys;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      await this.redis.watch(k.calendarVersions);
      const [raw, time] = await Promise.all([this.redis.hget(k.calendars, name), this.redis.time()]);
      const current = raw === null ? undefined : decodeCalendar(name, raw);
      if (current?.problem) {
        await this.redis.unwatch();
        throw new CalendarError(name, 'name', current.problem);
      }
      const before = current?.calendar;
      if (before && JSON.stringify(before.spec) === JSON.stringify(spec)) {
        await this.redis.unwatch();
        return { calendar: before, changed: false };
      }
      const at = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
      const calendar: StoredCalendar = {
        name,
        version: (before?.version ?? 0) + 1,
        spec,
        origin,
        at,
        by: by.actor,
      };
      const done = await this.redis
        .multi()
        .hset(k.calendars, name, encodeCalendar(calendar))
        .hset(k.calendarVersions, name, String(calendar.version))
        .xadd(
          k.calendarAudit(name),
          'MAXLEN',
          '~',
          String(CALENDAR_AUDIT_LIMIT),
          '*',
          'op',
          before ? 'update' : 'define',
          'actor',
          by.actor,
          'source',
          by.source,
          'version',
          String(calendar.version),
          ...(before ? ['before', JSON.stringify(before.spec)] : []),
          'after',
          JSON.stringify(spec),
        )
        .exec();
      if (done !== null) return { calendar, changed: true, ...(before && { before }) };
    }
    throw new CalendarError(
      name,
      'name',
      `kept being changed by another writer (${WRITE_ATTEMPTS} attempts)`,
    );
  }

  /** The current version of a calendar, or undefined when none is defined. */
  async get(name: string): Promise<StoredCalendar | undefined> {
    const raw = await this.redis.hget(this.keys.calendars, name);
    if (raw === null) return undefined;
    const { calendar, problem } = decodeCalendar(name, raw);
    if (problem) throw new CalendarError(name, 'name', problem);
    return calendar;
  }

  /** Every calendar's current version, by name (one that cannot be read is left out). */
  async list(): Promise<StoredCalendar[]> {
    const all = await this.redis.hgetall(this.keys.calendars);
    return Object.entries(all)
      .map(([name, raw]) => decodeCalendar(name, raw).calendar)
      .filter((c): c is StoredCalendar => c !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The current version numbers of `names` (null: not defined), in one round trip. */
  async versions(names: readonly string[]): Promise<(number | null)[]> {
    if (names.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.calendarVersions, ...names);
    return raw.map((v) => (v === null ? null : Number(v)));
  }

  /** The records of `names` (undefined where not defined or unreadable), in one round trip. */
  async many(names: readonly string[]): Promise<(StoredCalendar | undefined)[]> {
    if (names.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.calendars, ...names);
    return raw.map((r, i) => decodeCalendar(names[i]!, r).calendar);
  }

  /** A calendar's changes, newest first. */
  async history(name: string, limit = 50): Promise<CalendarChange[]> {
    const entries = await this.redis.xrevrange(this.keys.calendarAudit(name), '+', '-', 'COUNT', limit);
    return entries.map(([id, flat]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i]!] = flat[i + 1]!;
      const parse = (v: string | undefined) =>
        v === undefined ? undefined : (JSON.parse(v) as CalendarSpec);
      const before = parse(f.before);
      return {
        id,
        at: Number(id.split('-')[0]),
        op: f.op === 'update' ? 'update' : 'define',
        actor: f.actor ?? '',
        source: f.source ?? '',
        version: Number(f.version ?? 0),
        ...(before && { before }),
        after: parse(f.after) ?? { dates: [], rules: [] },
      };
    });
  }
}
