import { type ScriptLayout, unexpected } from './script-layout.js';

// The codes the store scripts answer, by name (BullMQ's `ErrorCode` and `finishedErrors({ code })`):
// the script callers (`schedule-scripts.ts` and its siblings) decode each answer to its name, so no caller reads a number.

/**
 * A status change: `set-status-6`, `pause-5` (never `claimed`) and `resume-10` (its first value).
 * `claimed`: nothing written, the schedule is claimed at or after the next time asked (re-read it, and
 * resume after the claimed occurrence).
 */
export const StatusChange = { done: 1, missing: 0, wrongStatus: -1, claimed: -2 } as const;
export type StatusChange = keyof typeof StatusChange;

/** What `renew-run-2` finds: the lease renewed, gone (lapsed, maybe given away), or asked to stop. */
export const RunLease = { held: 1, gone: 0, cancelled: -1 } as const;
export type RunLease = keyof typeof RunLease;

/** What `start-runs-1` decided for one run (its first value). */
export const RunStartCode = { started: 1, skipped: 0, wait: 2, reread: 3, ran: 4, refused: 5 } as const;
export type RunStartCode = keyof typeof RunStartCode;

/** What `backfill-take-11` finds about one occurrence. */
export const BackfillCode = {
  /** Nothing ran it: taken, to enqueue. */
  run: 0,
  /** Its scheduled record shows it enqueued or run, or the fire loop passed over it. */
  ran: 1,
  /** A backfill or a resume's catch-up took it already. */
  backfilled: 2,
  /** The schedule's own firing has it ahead (at or after its claimed or due time). */
  scheduled: 3,
  /** After Redis's clock. */
  future: 4,
  /** Not run: left out by the backfill's `only` (it would run without it, or it is not what `only` names). */
  excluded: 5,
} as const;
export type BackfillVerdict = keyof typeof BackfillCode;

/** `backfill-take-11`'s answer when the schedule does not exist (`{ -1 }`); `owed-done-5`'s too. */
export const NO_SCHEDULE = -1;

/** What `handover-scheduler-2` did. */
export const HandOverCode = { removed: 1, gone: 0, 'moved-on': 2 } as const;
export type HandOver = keyof typeof HandOverCode;

/** A per-call failure inside a batched script (`pcall`): the call's first value. */
export const CALL_FAILED = -1;

/** The name of `raw` among `codes`; a code the script's header does not name throws. */
export function codeName<C extends Record<string, number>>(l: ScriptLayout, codes: C, raw: unknown): keyof C {
  const n = Number(raw);
  for (const name in codes) if (codes[name] === n) return name;
  throw unexpected(l, raw);
}

/** A 1/0 answer (`1 done`, `0 nothing done`). */
export function yes(l: ScriptLayout, raw: unknown): boolean {
  const n = Number(raw);
  if (n !== 0 && n !== 1) throw unexpected(l, raw);
  return n === 1;
}
