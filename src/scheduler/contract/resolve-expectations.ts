import { ScheduleOptionsError } from '../../errors/index.js';
import {
  expectOption,
  firstProblem,
  type StoredExpectations,
  storedExpectationsOf,
} from '../../store/index.js';
import type { ScheduleExpectations } from './schedule-expectations.js';

/** The manager's `expect` (the deployment's defaults), checked with a schedule's rules; errors name `expect.<field>`. */
export function resolveDeploymentExpect(
  given: ScheduleExpectations | undefined,
): StoredExpectations | undefined {
  if (given === undefined) return undefined;
  const parsed = expectOption.safeParse(given);
  if (!parsed.success) {
    const { field, reason } = firstProblem(parsed.error);
    throw new ScheduleOptionsError(undefined, field === '(root)' ? 'expect' : `expect.${field}`, reason);
  }
  return storedExpectationsOf(parsed.data);
}

/**
 * Refuse a notifier name nobody configured: `expect.notify[1]: no notifier named "pager" is configured
 * (configured: ops)`. `known` is what the operator configured (this process's, and those the
 * scheduler replicas announced in Redis).
 */
export function checkNotify(
  scheduleId: string | undefined,
  expect: StoredExpectations | undefined,
  known: ReadonlySet<string>,
): void {
  for (const [i, name] of (expect?.notify ?? []).entries()) {
    if (known.has(name)) continue;
    const list =
      [...known].sort().join(', ') || 'none: give --notifier or BULLBEAT_NOTIFIERS to the scheduler';
    throw new ScheduleOptionsError(
      scheduleId,
      `expect.notify[${i}]`,
      `no notifier named ${JSON.stringify(name)} is configured (configured: ${list})`,
    );
  }
}
