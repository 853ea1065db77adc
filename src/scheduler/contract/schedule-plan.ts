import type { AuditChange } from '../../store/index.js';
import type { CalendarEffect } from '../../triggers/calendar-effect.js';

/** A schedule as a plan shows it: who runs it and when it fires. */
export interface PlannedSchedule {
  id: string;
  /** The BullMQ job name (the handler that runs it). */
  name: string;
  queue: string;
  /** Its trigger's JSON (`{ type: 'custom', kind }` for a custom one). */
  trigger: unknown;
}

/** A code schedule that is not stored yet: `start()` would create it. */
export interface PlannedAdd extends PlannedSchedule {
  /** Its next fire times (at most 3, jitter aside) once created. */
  nextAfter: number[];
  /** The stored schedule it looks like a rename of (same handler, queue and trigger), if any. */
  renameOf?: string;
}

/** What `start()` would do to a stored schedule besides writing a new definition. */
export type PlannedEffect = 're-timed' | 'restored' | 'error cleared' | 'source to code';

/** A stored schedule whose definition the code changes (or that the code brings back). */
export interface PlannedChange extends PlannedSchedule {
  /** The fields that differ, stored value first (`before`) and the code's (`after`). */
  changes: AuditChange[];
  effects: PlannedEffect[];
  /** Its stored status (`active`, `paused`, `orphaned`, `errored`, `completed`). */
  status: string;
  /** Its next fire times as stored (at most 3, jitter aside; none while it is not active). */
  nextBefore: number[];
  /** Its next fire times after the start (at most 3, jitter aside; none while it stays paused). */
  nextAfter: number[];
}

/** A stored code schedule that the code no longer defines. */
export interface PlannedRemoval extends PlannedSchedule {
  /** Its stored status. */
  status: string;
  /**
   * `orphaned`: a scheduler replica's start pauses it as orphaned (it is active now); `none`: it is
   * paused, orphaned or completed already and stays so.
   */
  effect: 'orphaned' | 'none';
  /** Its next fire times as stored (at most 3; none while it is not active). */
  nextBefore: number[];
}

/**
 * A removed schedule and an added one with the same handler, queue and trigger: most likely a renamed
 * id. The new id starts with no history and fires on its own, so until every replica runs the new code
 * (the old code upserts and fires the old id) both fire: the duplicate-run trap.
 */
export interface PlannedRename {
  from: string;
  to: string;
  name: string;
  queue: string;
}

/**
 * A calendar the jobs module defines (`calendars.define` at its top level) and what that would do: its
 * version, and the stored active schedules on it whose next fire times it moves (as `calendar:define
 * --dry-run` shows them). Under `bullbeat plan` the define writes nothing: it is collected for this.
 */
export interface PlannedCalendar {
  name: string;
  /** The version now stored (undefined: the calendar does not exist yet). */
  versionBefore: number | undefined;
  /** The version the define would write (`versionBefore` when the content is the same). */
  versionAfter: number;
  /** False when the content equals the stored version's: the define writes nothing. */
  changed: boolean;
  /** The schedules on it whose next 3 fire times it moves, before and after. */
  moved: CalendarEffect[];
  /** How many schedules on it keep their next fire times. */
  unchanged: number;
  /** Schedules on it whose fire times could not be computed, with why. */
  errors: { id: string; error: string }[];
}

/** What starting a jobs module would do to the stored schedules (`SchedulerManager.plan()`); nothing is written. */
export interface SchedulePlan {
  /** The deployment (key prefix) compared with. */
  prefix: string;
  /** When it was computed (Redis's clock, epoch ms): the fire times are the ones after it. */
  at: number;
  added: PlannedAdd[];
  changed: PlannedChange[];
  removed: PlannedRemoval[];
  renamed: PlannedRename[];
  /** Code schedules stored exactly as the code defines them. */
  unchanged: number;
  /**
   * The calendars the module defines as it loads (collected, not written, in `bullbeat plan`), each
   * with its effect on the schedules that use it; empty when it defines none (or outside plan mode).
   */
  calendars: PlannedCalendar[];
  /**
   * True when starting the code would change anything stored (a removal whose effect is `none` aside),
   * a calendar it defines with other content included.
   */
  hasChanges: boolean;
}
