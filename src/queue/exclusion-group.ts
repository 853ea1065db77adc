import type { Logger } from 'pino';
import type { LeaseStore } from '../store/index.js';
import { takeGroupPlace, waitForPlace } from './group-place.js';
import type { HeldLeases } from './held-leases.js';
import type { Occurrence } from './occurrence-source.js';
import type { SkippedResult } from './run-results.js';
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
  const { run } = occurrence;
  const group = run.exclusionGroup;
  if (!group) return undefined;

  const waitMs = run.exclusionWaitMs ?? options.exclusionWaitMs;
  const deadline = options.clock.now() + waitMs;
  const takenAt = await waitForPlace(
    leases,
    occurrence,
    group,
    1,
    'bufferAll',
    held,
    options,
    deadline,
    signal,
  );
  if (takenAt !== undefined) return { takenAt };
  logger.info({ group, waitMs }, 'skipped: exclusion group stayed busy');
  return { skipped: 'exclusion-group', group };
}
