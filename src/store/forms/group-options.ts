import { z } from 'zod';
import { showValue as show } from './show-value.js';

// Groups: at most `max` runs at once across every schedule that names the same `key`, cluster-wide,
// counted with the leases of the exclusion groups (one holder set per key, a fair line of waiters).

/** What a run does when its group already runs `max`: skipped, one waits, or each waits (in line). */
export const GROUP_OVERFLOWS = ['skip', 'bufferOne', 'bufferAll'] as const;
export type GroupOverflow = (typeof GROUP_OVERFLOWS)[number];

/** A schedule's group, as stored in its definition's `run` and carried by each job. */
export interface GroupRule {
  /** The group's name: every schedule naming it shares its `max` (`'tenant:acme'`). */
  key: string;
  /** Runs of the group allowed at once, across every worker (>= 1). */
  max: number;
  /**
   * When the group is full: `'skip'` (recorded `skipped`, reason `group`), `'bufferOne'` (waits for a
   * slot; when another run already waits, skipped) or `'bufferAll'` (each waits, in arrival order).
   * Default `'skip'`.
   */
  overflow?: GroupOverflow;
  /** How long a buffered run waits for a slot before it is skipped (ms). Default: the worker's `exclusionWaitMs`. */
  waitMs?: number;
}

const intAtLeast = (min: number) => {
  const error = (i: { input: unknown }) => `must be an integer >= ${min}, got ${show(i.input)}`;
  return z.number({ error }).int({ error }).min(min, { error });
};

/** The `group` option's rule (the options, the JSON API, the CLI and a stored definition). */
export const groupField = z.strictObject(
  {
    key: z
      .string({ error: (i) => `must be a non-empty string of at most 256 characters, got ${show(i.input)}` })
      .min(1, { error: 'must be a non-empty string of at most 256 characters' })
      .max(256, { error: 'must be a non-empty string of at most 256 characters' }),
    max: intAtLeast(1),
    overflow: z
      .enum(GROUP_OVERFLOWS, {
        error: (i) =>
          `must be one of ${GROUP_OVERFLOWS.map((p) => `"${p}"`).join(', ')}, got ${show(i.input)}`,
      })
      .optional(),
    waitMs: intAtLeast(0).optional(),
  },
  {
    error: (i) =>
      i.code === 'unrecognized_keys'
        ? 'unknown group option'
        : `must be an object { key, max, overflow?, waitMs? }, got ${show(i.input)}`,
  },
);

/**
 * The lease set's name of a group in the exclusion groups' key space (`Keys.group`): apart from any
 * exclusion group of the same name.
 */
export function groupLeaseName(key: string): string {
  return `max:${key}`;
}
