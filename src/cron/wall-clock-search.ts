import { nextBit, nextBit60, prevBit, prevBit60 } from './bits.js';
import {
  type CivilDate,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  MS_PER_SECOND,
  SECONDS_PER_DAY,
  weekdayOfDays,
} from './calendar.js';
import type { CronPattern } from './pattern.js';

interface WallFields extends CivilDate {
  hour: number;
  minute: number;
  second: number;
}

function toWallMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  return (
    (daysFromCivil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second) * MS_PER_SECOND
  );
}

/** How far a search may run: 400 years, one full Gregorian cycle (the calendar repeats after it). */
export const SEARCH_MONTHS = 4800;

/**
 * Finds matching wall-clock times of a pattern: times as milliseconds on a zone-free clock (the
 * local time read as if it were UTC). Each step jumps straight to the next allowed value of a
 * field with a bit operation, so a search costs a handful of steps per month it crosses, never a
 * scan of minutes or days. The day set of a month is computed once and cached.
 */
export class WallClockSearch {
  /** The weekday-only day mask for a month whose first day is weekday `i` (bits 1-31). */
  private readonly weekly: number[];
  private readonly dayAnd: boolean;
  private readonly hasDaySpecials: boolean;
  private cachedMonth = Number.NaN;
  private cachedDays = 0;
  private readonly fields: WallFields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };

  constructor(
    private readonly p: CronPattern,
    dayMatch: 'or' | 'and',
  ) {
    this.weekly = [];
    for (let first = 0; first < 7; first++) {
      let m = 0;
      for (let d = 1; d <= 31; d++) if (p.dowMask & (1 << ((first + d - 1) % 7))) m |= 1 << d;
      this.weekly.push(m);
    }
    this.dayAnd = dayMatch === 'and' || p.domStar || p.dowStar;
    this.hasDaySpecials =
      p.domFromLast.length > 0 ||
      p.domLastWeekday ||
      p.domNearestWeekday.length > 0 ||
      p.dowNth.length > 0 ||
      p.dowLast.length > 0;
  }

  /** The days of `month` in `year` that match, as bits 1-31. */
  daysOf(year: number, month: number): number {
    const key = year * 16 + month;
    if (key !== this.cachedMonth) {
      this.cachedDays = this.computeDays(year, month);
      this.cachedMonth = key;
    }
    return this.cachedDays;
  }

  private computeDays(year: number, month: number): number {
    const p = this.p;
    const dim = daysInMonth(year, month);
    const valid = (dim === 31 ? -1 : (1 << (dim + 1)) - 1) & ~1;
    const firstDays = daysFromCivil(year, month, 1);
    const first = weekdayOfDays(firstDays);
    let dom = p.domMask;
    let dow = this.weekly[first] as number;
    if (this.hasDaySpecials) {
      for (const n of p.domFromLast) if (dim - n >= 1) dom |= 1 << (dim - n);
      if (p.domLastWeekday) {
        const w = (first + dim - 1) % 7;
        dom |= 1 << (w === 6 ? dim - 1 : w === 0 ? dim - 2 : dim);
      }
      for (const n of p.domNearestWeekday) {
        if (n > dim) continue;
        const w = (first + n - 1) % 7;
        const day = w === 6 ? (n > 1 ? n - 1 : n + 2) : w === 0 ? (n < dim ? n + 1 : n - 2) : n;
        dom |= 1 << day;
      }
      for (const code of p.dowNth) {
        const day = 1 + (((((code >> 3) - first) % 7) + 7) % 7) + 7 * ((code & 7) - 1);
        if (day <= dim) dow |= 1 << day;
      }
      for (const w of p.dowLast) {
        const lastWeekday = (first + dim - 1) % 7;
        dow |= 1 << (dim - ((((lastWeekday - w) % 7) + 7) % 7));
      }
    }
    return (this.dayAnd ? dom & dow : dom | dow) & valid;
  }

  /** Split whole seconds of wall time into calendar fields (into a reused object). */
  private split(seconds: number): WallFields {
    const f = this.fields;
    const days = Math.floor(seconds / SECONDS_PER_DAY);
    civilFromDays(days, f);
    const sod = seconds - days * SECONDS_PER_DAY;
    f.hour = Math.floor(sod / 3600);
    f.minute = Math.floor(sod / 60) % 60;
    f.second = sod % 60;
    return f;
  }

  /** The first matching wall time at or after `wall` (rounded up to a whole second), or NaN. */
  next(wall: number): number {
    const p = this.p;
    let { year, month, day, hour, minute, second } = this.split(Math.ceil(wall / MS_PER_SECOND));
    for (let monthsCrossed = 0; monthsCrossed <= SEARCH_MONTHS; ) {
      if ((p.months & (1 << month)) === 0 || day > 31) {
        if (++month > 12) {
          month = 1;
          year++;
        }
        day = 1;
        hour = minute = second = 0;
        monthsCrossed++;
        continue;
      }
      const d = nextBit(this.daysOf(year, month), day);
      if (d < 0) {
        day = 32;
        continue;
      }
      if (d !== day) {
        day = d;
        hour = minute = second = 0;
      }
      const h = nextBit(p.hours, hour);
      if (h < 0) {
        day++;
        hour = minute = second = 0;
        continue;
      }
      if (h !== hour) {
        hour = h;
        minute = second = 0;
      }
      const m = nextBit60(p.minLo, p.minHi, minute);
      if (m < 0) {
        hour++;
        minute = second = 0;
        if (hour > 23) {
          day++;
          hour = 0;
        }
        continue;
      }
      if (m !== minute) {
        minute = m;
        second = 0;
      }
      const s = nextBit60(p.secLo, p.secHi, second);
      if (s < 0) {
        minute++;
        second = 0;
        if (minute > 59) {
          hour++;
          minute = 0;
          if (hour > 23) {
            day++;
            hour = 0;
          }
        }
        continue;
      }
      return toWallMs(year, month, day, hour, minute, s);
    }
    return Number.NaN;
  }

  /** The last matching wall time at or before `wall` (rounded down to a whole second), or NaN. */
  prev(wall: number): number {
    const p = this.p;
    let { year, month, day, hour, minute, second } = this.split(Math.floor(wall / MS_PER_SECOND));
    for (let monthsCrossed = 0; monthsCrossed <= SEARCH_MONTHS; ) {
      if ((p.months & (1 << month)) === 0 || day < 1) {
        if (--month < 1) {
          month = 12;
          year--;
        }
        day = daysInMonth(year, month);
        hour = 23;
        minute = second = 59;
        monthsCrossed++;
        continue;
      }
      const d = prevBit(this.daysOf(year, month), day);
      if (d < 0) {
        day = 0;
        continue;
      }
      if (d !== day) {
        day = d;
        hour = 23;
        minute = second = 59;
      }
      const h = prevBit(p.hours, hour);
      if (h < 0) {
        day--;
        hour = 23;
        minute = second = 59;
        continue;
      }
      if (h !== hour) {
        hour = h;
        minute = second = 59;
      }
      const m = prevBit60(p.minLo, p.minHi, minute);
      if (m < 0) {
        hour--;
        minute = second = 59;
        if (hour < 0) {
          day--;
          hour = 23;
        }
        continue;
      }
      if (m !== minute) {
        minute = m;
        second = 59;
      }
      const s = prevBit60(p.secLo, p.secHi, second);
      if (s < 0) {
        minute--;
        second = 59;
        if (minute < 0) {
          hour--;
          minute = 59;
          if (hour < 0) {
            day--;
            hour = 23;
          }
        }
        continue;
      }
      return toWallMs(year, month, day, hour, minute, s);
    }
    return Number.NaN;
  }
}
