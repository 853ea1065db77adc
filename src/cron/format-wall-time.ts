import { civilFromDays, MS_PER_DAY, weekdayOfDays } from './calendar.js';
import { TimeZone } from './time-zone.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * An instant as the wall time of a zone, `2026-11-30 09:00:00` (with `weekday`: `Mon 2026-11-30
 * 09:00:00`), from the zone's cached offsets rather than an `Intl` call. Throws
 * `InvalidTimezoneError` for an unknown zone.
 */
export function formatWallTime(
  instant: number,
  timezone = 'UTC',
  options: { weekday?: boolean } = {},
): string {
  const wall = instant + TimeZone.of(timezone).offsetAt(instant);
  const days = Math.floor(wall / MS_PER_DAY);
  const { year, month, day } = civilFromDays(days, { year: 0, month: 0, day: 0 });
  const seconds = Math.floor((wall - days * MS_PER_DAY) / 1000);
  const time = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)} ${time}`;
  return options.weekday ? `${WEEKDAYS[weekdayOfDays(days)]} ${date}` : date;
}
