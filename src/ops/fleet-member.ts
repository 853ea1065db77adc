/** What a long-running process is in the fleet. */
export type FleetRole = 'scheduler' | 'worker';

/** A process's description in the fleet registry (stored as JSON). */
export interface FleetMemberInfo {
  /** Unique per process and role: `<role>:<host>:<pid>:<random>`. */
  id: string;
  role: FleetRole;
  host: string;
  pid: number;
  /** bullbeat's version. */
  version: string;
  /** Queues it consumes (workers; empty for scheduler replicas). */
  queues: string[];
  /** Job names it has a handler for (workers: the handlers of its jobs module). */
  handlers: string[];
  /**
   * Queue → the job names it handles there (workers): of `handlers`, those whose schedules send their
   * jobs to that queue. Absent in members written by bullbeat before it recorded them: then every
   * handler counts on every queue (see `handledByMember`).
   */
  handles?: Record<string, string[]>;
  /** Epoch ms (Redis time) when it joined. */
  startedAt: number;
  /** Epoch ms (Redis time) of its last heartbeat. */
  lastBeat: number;
  /** How often it beats (ms); it counts as dead `3 × heartbeatMs` after its last beat. */
  heartbeatMs: number;
}

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
}

/** Queue → job names a member handles there: its `handles`, or for an older member every handler on every queue. */
export function handledByMember(
  m: Pick<FleetMemberInfo, 'queues' | 'handlers' | 'handles'>,
): Record<string, string[]> {
  if (m.handles) return m.handles;
  return Object.fromEntries(m.queues.map((q) => [q, [...m.handlers]]));
}

/** A stored `handles` field, or undefined when it is absent or not a record of string lists. */
export function decodeHandles(x: unknown): Record<string, string[]> | undefined {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [q, names] of Object.entries(x)) {
    if (!Array.isArray(names)) return undefined;
    out[q] = names.filter((n): n is string => typeof n === 'string').sort();
  }
  return out;
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
