import type { Logger } from 'pino';
import type { LeaseStore } from '../store/index.js';
import { takeGroupPlace } from './group-place.js';
import type { HeldLeases } from './held-leases.js';
import type { Occurrence } from './occurrence-source.js';
import type { SkippedResult } from './run-results.js';
import { sleep } from './worker-clock.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * Take the run's exclusion group, if it has one (waiting in line up to the bound), then its place in
 * its group (`group` option, see group-place.ts), if it has one. Returns why the occurrence must be
 * skipped, the Redis TIME the last of them was taken at, or undefined (neither). A lease taken before
 * a skip is given back with the run's others.
 */
export async function takeGroup(
  leases: LeaseStore,
  options: ResolvedWorkerOptions,
  occurrence: Occurrence,
  held: HeldLeases,
  signal: AbortSignal,
  logger: Logger,
): Promise<SkippedResult | { takenAt: number } | undefined> {
  const exclusive = await takeExclusionGroup(leases, options, occurrence, held, signal, logger);
  if (exclusive && 'skipped' in exclusive) return exclusive;
  const place = await takeGroupPlace(leases, options, occurrence, held, signal, logger);
  return place ?? exclusive;
}

/** The exclusion group alone (see `takeGroup`). */
async function takeExclusionGroup(
  leases: LeaseStore,
  options: ResolvedWorkerOptions,
  occurrence: Occurrence,
  held: HeldLeases,
  signal: AbortSignal,
  logger: Logger,
): Promise<SkippedResult | { takenAt: number } | undefined> {
  const { keys: k, run } = occurrence;
  const group = run.exclusionGroup;
  if (!group) return undefined;

  const waitMs = run.exclusionWaitMs ?? options.exclusionWaitMs;
  const deadline = options.clock.now() + waitMs;
  for (;;) {
    const takenAt = await leases.tryGroupAt(k, group, held.leaseId);
    if (takenAt !== undefined) {
      held.add(k.group(group));
      return { takenAt };
    }
    const left = deadline - options.clock.now();
    if (left <= 0 || signal.aborted) break;
    try {
      await sleep(options.clock, Math.min(options.groupPollMs, left), signal);
    } catch {
      break;
    }
  }
  await leases.leaveGroupQueue(k, group, held.leaseId);
  if (signal.aborted) throw signal.reason;
  logger.info({ group, waitMs }, 'skipped: exclusion group stayed busy');
  return { skipped: 'exclusion-group', group };
}
