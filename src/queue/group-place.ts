import type { Logger } from 'pino';
import type { LeaseStore } from '../store/index.js';
import { groupLeaseName } from '../store/index.js';
import type { HeldLeases } from './held-leases.js';
import type { Occurrence } from './occurrence-source.js';
import type { SkippedResult } from './run-results.js';
import { sleep } from './worker-clock.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * Take a place in the run's group (`group` option: at most `max` runs at once across every schedule
 * naming its key, on every worker), if it has one. The place is a lease in the group's holder set, the
 * exclusion groups' machinery with `max` holders: renewed with the run's other leases, given back when
 * the run ends, and lapsing when its worker dies, which frees the place. When the group is full,
 * `overflow` decides: `skip` at once; `bufferOne`/`bufferAll` wait in the group's line (polling every
 * `groupPollMs`) up to `waitMs` (default the worker's `exclusionWaitMs`), then skip. Returns the skip
 * (reason `group`, the key in `group`), the Redis TIME the place was taken at, or undefined (no group).
 */
export async function takeGroupPlace(
  leases: LeaseStore,
  options: ResolvedWorkerOptions,
  occurrence: Occurrence,
  held: HeldLeases,
  signal: AbortSignal,
  logger: Logger,
): Promise<SkippedResult | { takenAt: number } | undefined> {
  const group = occurrence.run.group;
  if (!group) return undefined;
  const name = groupLeaseName(group.key);
  const overflow = group.overflow ?? 'skip';
  const deadline = options.clock.now() + (group.waitMs ?? options.exclusionWaitMs);
  const takenAt = await waitForPlace(
    leases,
    occurrence,
    name,
    group.max,
    overflow,
    held,
    options,
    deadline,
    signal,
  );
  if (takenAt !== undefined) return { takenAt };
  logger.info({ group: group.key, max: group.max, overflow }, 'skipped: its group is full');
  return { skipped: 'group', group: group.key };
}

/**
 * Take a place in the lease set `name` (at most `max` holders; an exclusion group is one with `max` 1
 * and a line), asking again every `groupPollMs` while `overflow` lets the run wait in line, until
 * `deadline` or the run's abort. The Redis TIME it was taken at (the place then held with the run's
 * leases), or undefined: the line is left when it was joined; an abort throws its reason.
 */
export async function waitForPlace(
  leases: LeaseStore,
  occurrence: Occurrence,
  name: string,
  max: number,
  overflow: 'skip' | 'bufferOne' | 'bufferAll',
  held: HeldLeases,
  options: ResolvedWorkerOptions,
  deadline: number,
  signal: AbortSignal,
): Promise<number | undefined> {
  const k = occurrence.keys;
  let waited = false;
  for (;;) {
    const taken = await leases.takeGroupPlace(k, name, held.leaseId, max, overflow);
    if (typeof taken === 'number') {
      held.add(k.group(name));
      return taken;
    }
    if (taken === 'refused') break;
    waited = true;
    const left = deadline - options.clock.now();
    if (left <= 0 || signal.aborted) break;
    try {
      await sleep(options.clock, Math.min(options.groupPollMs, left), signal);
    } catch {
      break;
    }
  }
  if (waited) await leases.leaveGroupQueue(k, name, held.leaseId);
  if (signal.aborted) throw signal.reason;
  return undefined;
}
