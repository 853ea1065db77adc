import type { FleetMemberInfo } from '../store/index.js';

export type { FleetMemberInfo, FleetRole } from '../store/index.js';

/** A member as a reader sees it: alive while its last beat is younger than three heartbeats. */
export interface FleetMember extends FleetMemberInfo {
  alive: boolean;
}

/** The fleet at one instant. */
export interface FleetSnapshot {
  /** Redis time (ms) of the reading. */
  now: number;
  /** Every member known (dead ones are kept for an hour after their last beat), alive ones first. */
  members: FleetMember[];
  /** Alive scheduler replicas. */
  replicas: number;
  /** Alive workers. */
  workers: number;
  /** Queue → job names a live worker has a handler for. */
  served: Record<string, string[]>;
  /**
   * bullbeat version → how many live members run it, sorted by version (a member that registered no
   * version, `unknown`, is left out: it says nothing of a mix).
   */
  versions: Record<string, number>;
  /**
   * Live members run more than one bullbeat version: a rolling upgrade under way, or a process left
   * behind. `bullbeat status` and the dashboard's fleet page warn of it.
   */
  mixedVersions: boolean;
}

/** A member's version says which release it runs (not `unknown`, nor empty). */
function knownVersion(version: string): boolean {
  return version !== '' && version !== 'unknown';
}

/** Live members per bullbeat version (see `FleetSnapshot.versions`). */
export function versionsOf(members: readonly FleetMember[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of members) {
    if (m.alive && knownVersion(m.version)) counts[m.version] = (counts[m.version] ?? 0) + 1;
  }
  return Object.fromEntries(
    Object.entries(counts).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })),
  );
}

/** `0.1.0 (2 processes), 0.2.0 (1 process)`: a mix of versions in one line. */
export function describeVersions(versions: Record<string, number>): string {
  return Object.entries(versions)
    .map(([v, n]) => `${v} (${n} process${n === 1 ? '' : 'es'})`)
    .join(', ');
}

/** Queue → job names a member handles there: its `handles`, or for an older member every handler on every queue. */
export function handledByMember(
  m: Pick<FleetMemberInfo, 'queues' | 'handlers' | 'handles'>,
): Record<string, string[]> {
  if (m.handles) return m.handles;
  return Object.fromEntries(m.queues.map((q) => [q, [...m.handlers]]));
}

/** Whether a live worker consumes `queue` with a handler for job `name`. */
export function isServed(snapshot: FleetSnapshot, queue: string, name: string): boolean {
  return snapshot.served[queue]?.includes(name) ?? false;
}

/**
 * Live workers that consume `queue` and have a handler for `name` there only by name: their handler is
 * for other queues (`handles`). They run such a job all the same (a worker runs a job by its name),
 * but the schedule likely names the wrong queue. Queue → names, per member.
 */
export function runByNameOnly(snapshot: FleetSnapshot, queue: string, name: string): FleetMember[] {
  return snapshot.members.filter(
    (m) =>
      m.alive &&
      m.role === 'worker' &&
      m.queues.includes(queue) &&
      m.handlers.includes(name) &&
      !handledByMember(m)[queue]?.includes(name),
  );
}

/** The queues where a member handles `name` (its `handles`), sorted. */
export function queuesHandling(m: FleetMemberInfo, name: string): string[] {
  return Object.entries(handledByMember(m))
    .filter(([, names]) => names.includes(name))
    .map(([q]) => q)
    .sort();
}
