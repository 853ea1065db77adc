import type { CalendarBook, CalendarChange, CalendarStore, StoredCalendar } from '../../store/index.js';
import type { CalendarSpec } from '../../triggers/business-calendar.js';
import type { CalendarSource } from '../../triggers/calendar-trigger.js';
import { actorOf, type CalendarInput, type ChangeOptions, resolveCalendarInput } from '../contract/index.js';

/** What `calendars.define` answers. */
export interface CalendarDefined {
  name: string;
  /** The version now current. */
  version: number;
  /** False when the input equals the current version's content (nothing written). */
  changed: boolean;
  /** The version replaced, when there was one and it changed. */
  previousVersion?: number;
}

/**
 * A deployment's named calendars (`manager.calendars`): defined once, by name, versioned (each change a
 * new version, audited with the content before and after), and read by every schedule that names one
 * (`calendar: 'us-market-days'`) when it is planned, so a change reaches them all with one write.
 */
export class Calendars {
  readonly #store: () => CalendarStore;
  readonly #book: CalendarBook;
  /** Under `bullbeat plan`: the definitions collected instead of written, by name (the last one counts). */
  readonly #collected: Map<string, CalendarSpec> | undefined;

  /**
   * @internal made by the manager; `collect` (a manager made for `bullbeat plan`): `define` writes
   * nothing and keeps what it was given for the plan (`collected`).
   */
  constructor(store: () => CalendarStore, book: CalendarBook, collect = false) {
    this.#store = store;
    this.#book = book;
    this.#collected = collect ? new Map() : undefined;
  }

  /** @internal The calendars defined while collecting (`bullbeat plan`), in the order first defined. */
  collected(): { name: string; spec: CalendarSpec }[] {
    return [...(this.#collected ?? new Map<string, CalendarSpec>())].map(([name, spec]) => ({ name, spec }));
  }

  /**
   * Define a calendar, or change it (a new version): `dates`, an `.ics` text and `rules`, in any mix.
   * The same content as the current version writes nothing (so a jobs module may define its calendars
   * at every start). Bad input throws a `CalendarError` naming the field; nothing is written then.
   */
  async define(name: string, input: CalendarInput, change?: ChangeOptions): Promise<CalendarDefined> {
    const { spec, origin } = resolveCalendarInput(name, input);
    const by = actorOf(undefined, change);
    if (this.#collected) {
      // plan mode: what the define would answer, read only; the plan shows its effect
      this.#collected.set(name, spec);
      const stored = await this.#store().get(name);
      const changed = !stored || JSON.stringify(stored.spec) !== JSON.stringify(spec);
      return {
        name,
        version: stored ? stored.version + (changed ? 1 : 0) : 1,
        changed,
        ...(stored && changed && { previousVersion: stored.version }),
      };
    }
    const written = await this.#store().define(name, spec, origin, by);
    if (written.changed) await this.#book.refresh([name]);
    return {
      name,
      version: written.calendar.version,
      changed: written.changed,
      ...(written.before && { previousVersion: written.before.version }),
    };
  }

  /** The current version of a calendar, or undefined. */
  get(name: string): Promise<StoredCalendar | undefined> {
    return this.#store().get(name);
  }

  /** Every calendar, by name. */
  list(): Promise<StoredCalendar[]> {
    return this.#store().list();
  }

  /**
   * A source of the calendars `names` at their current versions (read in one round trip), for code
   * that reads a schedule's trigger (`triggerFromJSON(json, { calendars })`).
   */
  async current(names: Iterable<string>): Promise<CalendarSource> {
    await this.#book.refresh(names);
    return this.#book;
  }

  /** A calendar's changes, newest first, each with its content before and after. */
  history(name: string, limit?: number): Promise<CalendarChange[]> {
    return this.#store().history(name, limit);
  }
}
