import type { TriggerJSON } from './trigger.js';

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
