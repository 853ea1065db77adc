import { BusinessCalendar } from '../../triggers/business-calendar.js';
import type { CalendarSource } from '../../triggers/calendar-trigger.js';
import type { CalendarStore } from './calendar-store.js';

/**
 * The named calendars one process uses, compiled once per version and kept current by a version check:
 * `refresh(names)` reads the version numbers in one round trip (`HMGET`) and the records of those that
 * changed only. Triggers read it by name (`CalendarSource`), so every schedule that uses a calendar sees
 * its new version from the refresh on, with no write to any schedule.
 */
export class CalendarBook implements CalendarSource {
  readonly #compiled = new Map<string, BusinessCalendar>();
  /** Names whose stored record did not compile, with the version that failed (not read again). */
  readonly #broken = new Map<string, number>();

  /** `store`: read at each refresh (the connection may be replaced). */
  constructor(private readonly store: () => CalendarStore) {}

  calendar(name: string): BusinessCalendar | undefined {
    return this.#compiled.get(name);
  }

  /** Bring `names` to their current versions; a calendar no longer defined is forgotten. */
  async refresh(names: Iterable<string>): Promise<void> {
    const list = [...new Set(names)];
    if (list.length === 0) return;
    const versions = await this.store().versions(list);
    const stale: string[] = [];
    list.forEach((name, i) => {
      const v = versions[i];
      if (v === null || v === undefined) this.#compiled.delete(name);
      else if (this.#compiled.get(name)?.version !== v && this.#broken.get(name) !== v) stale.push(name);
    });
    if (stale.length === 0) return;
    const records = await this.store().many(stale);
    stale.forEach((name, i) => {
      const rec = records[i];
      if (!rec) return;
      try {
        this.#compiled.set(name, new BusinessCalendar(name, rec.version, rec.spec));
        this.#broken.delete(name);
      } catch {
        // stored by `define`, which compiles it first: only a record written by hand lands here
        this.#broken.set(name, rec.version);
        this.#compiled.delete(name);
      }
    });
  }
}
