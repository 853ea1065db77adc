import { TriggerError } from '../errors/index.js';
import { CompoundLogic } from './compound-logic.js';
import { type DueAware, type DueContext, earliestDue, isDueAware } from './earliest-due.js';
import { show } from './show-value.js';
import { checkTimeBudget } from './time-budget.js';
import type { CompoundTriggerJSON, SerializableTrigger, Trigger, TriggerJSON } from './trigger.js';

/** The AND search gives up after this many rounds in one evaluation (all nested compounds together). */
const MAX_ROUNDS = 10_000;
/** The AND search gives up past this far ahead of where it started (400 years, in ms). */
const HORIZON_MS = 400 * 365.2425 * 24 * 3600 * 1000;

/**
 * Combines triggers.
 *
 * - `OR` (default): the earliest of the children's next fire times.
 * - `AND`: the earliest instant at which every child is *due*, strictly after the last fire (after
 *   `now` when it never fired). Calendar children (cron, date and custom triggers) are due only at
 *   their instants; an interval child is due from its next fire time onward; an OR child is due when
 *   any of its children is; an AND child when all of its children are. Found by a fixed-point search
 *   (raise the candidate to each child's earliest due instant until they all agree), bounded by
 *   10,000 rounds and a 400-year horizon: past either it answers `null` (exhausted) rather than loop.
 *
 * Inside an AND:
 * - a `CronTrigger`'s jitter is ignored (it is due exactly at its cron instants);
 * - an `IntervalTrigger` draws its jitter once per evaluation;
 * - a custom trigger is asked `nextFire(x - 1, now)` for its first instant at or after `x`, and must
 *   answer a time after `x - 1` (or `null`); anything else throws a `TriggerError`.
 * - a `DateTrigger` whose `at` is not after the last fire (or `now`) can never be due: the AND is then
 *   exhausted, even though a lone `DateTrigger` would still answer its past `at`.
 *
 * Children are handed the compound's own `lastFire` and `now`: a child does not know which child
 * caused the last fire. So inside an OR a jittered child counts from the compound's last fire: when a
 * sibling fires inside that child's jitter window, the child's pending occurrence is dropped (its
 * next one is planned after the sibling's fire). Without jitter nothing is lost.
 */
export class CompoundTrigger implements SerializableTrigger, DueAware {
  readonly triggers: readonly Trigger[];
  readonly logic: CompoundLogic;

  constructor(triggers: readonly Trigger[], logic: CompoundLogic = CompoundLogic.OR) {
    if (!Array.isArray(triggers)) {
      throw new TriggerError(
        'CompoundTrigger',
        'triggers',
        `must be an array of triggers, got ${show(triggers)}`,
      );
    }
    if (triggers.length === 0) {
      throw new TriggerError(
        'CompoundTrigger',
        'triggers',
        'must hold at least one trigger, got an empty list',
      );
    }
    triggers.forEach((t: unknown, i) => {
      if (typeof t !== 'object' || t === null || typeof (t as Trigger).nextFire !== 'function') {
        throw new TriggerError(
          'CompoundTrigger',
          `triggers[${i}]`,
          `must be a trigger (an object with a nextFire method), got ${show(t)}`,
        );
      }
    });
    if (logic !== CompoundLogic.AND && logic !== CompoundLogic.OR) {
      throw new TriggerError('CompoundTrigger', 'logic', `must be "and" or "or", got ${show(logic)}`);
    }
    this.triggers = Object.freeze([...triggers]);
    this.logic = logic;
  }

  nextFire(lastFire: number | null, now: number): number | null {
    if (this.logic === CompoundLogic.OR) {
      let best: number | null = null;
      for (const t of this.triggers) {
        const next = t.nextFire(lastFire, now);
        if (next !== null && (best === null || next < best)) best = next;
      }
      return best;
    }
    const x = (lastFire ?? now) + 1;
    return this[earliestDue](x, {
      lastFire,
      now,
      memo: new Map(),
      roundsLeft: MAX_ROUNDS,
      horizon: x + HORIZON_MS,
    });
  }

  [earliestDue](x: number, ctx: DueContext): number | null {
    if (this.logic === CompoundLogic.OR) {
      let best: number | null = null;
      for (let i = 0; i < this.triggers.length; i++) {
        const due = dueOf(this.triggers[i]!, i, x, ctx);
        if (due !== null && (best === null || due < best)) best = due;
      }
      return best;
    }
    // AND: raise x to each child's earliest due instant until a whole round leaves it unchanged.
    let candidate = x;
    for (;;) {
      if (ctx.roundsLeft-- <= 0 || candidate > ctx.horizon) return null;
      if ((ctx.roundsLeft & 63) === 0) checkTimeBudget('CompoundTrigger');
      let agreed = true;
      for (let i = 0; i < this.triggers.length; i++) {
        const due = dueOf(this.triggers[i]!, i, candidate, ctx);
        if (due === null || due > ctx.horizon) return null;
        if (due !== candidate) {
          candidate = due;
          agreed = false;
        }
      }
      if (agreed) return candidate;
    }
  }

  /** Throws a `TriggerError` when a child (at any depth) is a custom trigger, which cannot be serialized. */
  toJSON(): CompoundTriggerJSON {
    const triggers: TriggerJSON[] = this.triggers.map((t, i) => {
      if (!isDueAware(t) || typeof (t as Partial<SerializableTrigger>).toJSON !== 'function') {
        throw new TriggerError(
          'CompoundTrigger',
          `triggers[${i}]`,
          'is a custom trigger: it can only be defined in code and cannot be serialized',
        );
      }
      try {
        return (t as unknown as SerializableTrigger).toJSON();
      } catch (err) {
        if (err instanceof TriggerError && err.trigger === 'CompoundTrigger') {
          throw new TriggerError('CompoundTrigger', `triggers[${i}].${err.field}`, err.reason, {
            cause: err,
          });
        }
        throw err;
      }
    });
    return { type: 'compound', logic: this.logic, triggers };
  }
}

/** The earliest instant `>= x` at which child `t` (index `i`, for errors) is due. */
function dueOf(t: Trigger, i: number, x: number, ctx: DueContext): number | null {
  if (isDueAware(t)) return t[earliestDue](x, ctx);
  const next = t.nextFire(x - 1, ctx.now);
  if (next === null) return null;
  if (typeof next !== 'number' || !(next >= x) || !Number.isFinite(next)) {
    throw new TriggerError(
      'CompoundTrigger',
      `triggers[${i}]`,
      `custom trigger broke the contract: nextFire(${x - 1}, ${ctx.now}) returned ${show(next)}, ` +
        `expected a time after ${x - 1} or null`,
    );
  }
  return next;
}
