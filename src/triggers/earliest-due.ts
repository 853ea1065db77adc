/**
 * Internal to `src/triggers/`: how a compound AND asks a child for "the earliest instant >= x at which
 * you are due". Each built-in trigger implements it under this symbol; any other object with
 * `nextFire` is a custom trigger and is asked `nextFire(x - 1, now)` instead. Not exported from the
 * package: the due-set rule is an implementation detail of `CompoundTrigger`.
 */
export const earliestDue = Symbol('bullbeat.earliestDue');

/** The arguments the compound was asked with, handed down unchanged to every child. */
export interface DueContext {
  /** The compound's last fire time (`null` when it never fired). */
  lastFire: number | null;
  now: number;
  /**
   * One answer per trigger for the whole evaluation, so that a jittered interval child draws its
   * random offset once rather than once per round of the fixed-point search.
   */
  memo: Map<object, number | null>;
  /** Rounds left in the whole evaluation (shared by nested compounds); at 0 the search gives up. */
  roundsLeft: number;
  /** The search gives up (returns `null`) past this instant. */
  horizon: number;
}

/** A trigger that knows its own due set. */
export interface DueAware {
  /**
   * The earliest instant `>= x` at which this trigger is due, or `null` when there is none (within
   * the search bounds).
   */
  [earliestDue](x: number, ctx: DueContext): number | null;
}

export function isDueAware(t: object): t is DueAware {
  return typeof (t as Partial<DueAware>)[earliestDue] === 'function';
}
