import type { Trigger, TriggerJSON } from './trigger.js';

/**
 * A built-in trigger's JSON with every jitter removed, at any depth: the planned instants only. A
 * backfill walks these, so that two processes backfilling the same range find the same occurrences.
 */
export function withoutJitter(json: TriggerJSON): TriggerJSON {
  switch (json.type) {
    case 'cron':
    case 'interval': {
      const { jitter: _, ...rest } = json;
      return rest as TriggerJSON;
    }
    case 'compound':
      return { ...json, triggers: json.triggers.map(withoutJitter) };
    case 'except':
      return { ...json, trigger: withoutJitter(json.trigger) };
    default:
      return json;
  }
}

/** The largest jitter anywhere in a built-in trigger's JSON, in ms (0 without). */
export function jitterMsOf(json: TriggerJSON | { type: string }): number {
  const t = json as TriggerJSON;
  switch (t.type) {
    case 'cron':
    case 'interval':
      return Math.round((t.jitter ?? 0) * 1000);
    case 'compound':
      return Math.max(0, ...t.triggers.map(jitterMsOf));
    case 'except':
      return jitterMsOf(t.trigger);
    default:
      return 0;
  }
}

/**
 * The planned instant a jittered due time was drawn for: the last instant of `planned` (the trigger
 * without its jitter) in `[due - jitterMs, due]`; `due` itself when there is none. What a preview
 * starts from, so that it shows the same instants at every reading.
 */
export function plannedInstantOf(planned: Trigger, due: number, jitterMs: number): number {
  const from = due - jitterMs - 1;
  let at = planned.nextFire(from, from);
  if (at === null || at > due) return due;
  for (let i = 0; i < 1000; i++) {
    const after = planned.nextFire(at, at);
    if (after === null || after <= at || after > due) break;
    at = after;
  }
  return at;
}
