import type { AuditChange } from '../../store/index.js';

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
  /** True when starting the code would change anything stored (a removal whose effect is `none` aside). */
  hasChanges: boolean;
}
