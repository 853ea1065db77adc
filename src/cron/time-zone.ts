import { InvalidTimezoneError } from '../errors/invalid-timezone-error.js';
import { type CivilDate, civilFromDays, MS_PER_DAY } from './calendar.js';

/** A stretch of time with one UTC offset: `[start, end)`, and the offset in force just before it. */
export interface OffsetSpan {
  start: number;
  end: number;
  /** Local time minus UTC, in ms. */
  offset: number;
  /** The offset just before `start`: greater means a fall-back overlap, smaller a spring-forward gap. */
  prevOffset: number;
}

/** The offsets of one UTC calendar year: `offsets[i]` holds from `changes[i - 1]` (or `start`) on. */
interface YearOffsets {
  start: number;
  end: number;
  changes: number[];
  offsets: number[];
}

const UTC_NAMES = new Set([
  'UTC',
  'Etc/UTC',
  'Etc/UCT',
  'UCT',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'Zulu',
]);
const SAMPLE_STEP_MS = 7 * MS_PER_DAY;
const zones = new Map<string, TimeZone>();

/**
 * An IANA time zone with its offsets cached per UTC year. `Intl` is asked only when a year is first
 * used (one sample a week, then a binary search to the second for each change it finds), so that a
 * `next()` in a zone costs a lookup in a short array, not a handful of `Intl` calls.
 */
export class TimeZone {
  /** The zone for a name; instances are shared. Throws InvalidTimezoneError for unknown names. */
  static of(name: string): TimeZone {
    let zone = zones.get(name);
    if (zone === undefined) {
      zone = new TimeZone(name);
      zones.set(name, zone);
    }
    return zone;
  }

  /**
   * The name as given. (Intl's canonical name is not used: on Node 20's ICU it turns current IANA
   * names into old aliases, `Asia/Kolkata` into `Asia/Calcutta`.)
   */
  readonly name: string;
  /** UTC or an alias of it: every span is infinite and no offset is ever looked up. */
  readonly isUtc: boolean;
  private readonly format: Intl.DateTimeFormat | null;
  private readonly years = new Map<number, YearOffsets>();
  private readonly lastSpan: OffsetSpan = { start: 0, end: 0, offset: 0, prevOffset: 0 };
  private readonly date: CivilDate = { year: 0, month: 0, day: 0 };

  private constructor(name: string) {
    if (typeof name !== 'string' || name.trim() === '') throw new InvalidTimezoneError(String(name));
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch (cause) {
      throw new InvalidTimezoneError(name, { cause });
    }
    this.name = name;
    this.isUtc = UTC_NAMES.has(format.resolvedOptions().timeZone);
    this.format = this.isUtc ? null : format;
  }

  /** The offset (local minus UTC, ms) in force at `instant`. */
  offsetAt(instant: number): number {
    return this.spanAt(instant).offset;
  }

  /**
   * The span of constant offset that contains `instant`. Spans also end at UTC year boundaries,
   * where the offset need not change (`prevOffset === offset`). The returned object is reused by the
   * next call: copy what you keep.
   */
  spanAt(instant: number): OffsetSpan {
    const span = this.lastSpan;
    if (instant >= span.start && instant < span.end) return span;
    if (this.isUtc) {
      span.start = -8.64e15;
      span.end = 8.64e15;
      span.offset = span.prevOffset = 0;
      return span;
    }
    const year = this.yearOffsets(civilFromDays(Math.floor(instant / MS_PER_DAY), this.date).year);
    let i = 0;
    while (i < year.changes.length && (year.changes[i] as number) <= instant) i++;
    span.start = i > 0 ? (year.changes[i - 1] as number) : year.start;
    span.end = i < year.changes.length ? (year.changes[i] as number) : year.end;
    span.offset = year.offsets[i] as number;
    span.prevOffset = i > 0 ? (year.offsets[i - 1] as number) : this.offsetBefore(year.start);
    return span;
  }

  private offsetBefore(instant: number): number {
    const year = this.yearOffsets(civilFromDays(Math.floor((instant - 1) / MS_PER_DAY), this.date).year);
    let i = 0;
    while (i < year.changes.length && (year.changes[i] as number) <= instant - 1) i++;
    return year.offsets[i] as number;
  }

  private yearOffsets(year: number): YearOffsets {
    let data = this.years.get(year);
    if (data !== undefined) return data;
    const end = yearStart(year + 1);
    const changes: number[] = [];
    const offsets: number[] = [this.intlOffset(yearStart(year))];
    let prevAt = yearStart(year);
    let prevOffset = offsets[0] as number;
    for (let at = prevAt + SAMPLE_STEP_MS; ; at += SAMPLE_STEP_MS) {
      const sampleAt = Math.min(at, end);
      const offset = this.intlOffset(sampleAt);
      if (offset !== prevOffset) {
        const change = this.findChange(prevAt, sampleAt, offset);
        if (change < end) {
          changes.push(change);
          offsets.push(offset);
        }
        prevOffset = offset;
      }
      prevAt = sampleAt;
      if (sampleAt >= end) break;
    }
    data = { start: yearStart(year), end, changes, offsets };
    this.years.set(year, data);
    return data;
  }

  /** The first whole second in `(from, to]` at which the offset is `after`. */
  private findChange(from: number, to: number, after: number): number {
    let lo = Math.floor(from / 1000);
    let hi = Math.ceil(to / 1000);
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.intlOffset(mid * 1000) === after) hi = mid;
      else lo = mid;
    }
    return hi * 1000;
  }

  /** Ask Intl: the wall-clock fields at `instant`, read as UTC, minus the instant (whole seconds). */
  private intlOffset(instant: number): number {
    const at = Math.floor(instant / 1000) * 1000;
    const fields: Record<string, string> = {};
    for (const part of (this.format as Intl.DateTimeFormat).formatToParts(at)) fields[part.type] = part.value;
    let year = Number(fields.year);
    if (fields.era === 'BC' || fields.era === 'B') year = 1 - year;
    const wall = new Date(0);
    wall.setUTCFullYear(year, Number(fields.month) - 1, Number(fields.day));
    wall.setUTCHours(Number(fields.hour), Number(fields.minute), Number(fields.second), 0);
    return wall.getTime() - at;
  }
}

/** The instant at which UTC year `year` starts (Date.UTC maps years 0-99 to 1900-1999). */
function yearStart(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1);
  return d.getTime();
}
