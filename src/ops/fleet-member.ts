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

/** Whether a live worker consumes `queue` with a handler for job `name`. */
export function isServed(snapshot: FleetSnapshot, queue: string, name: string): boolean {
  return snapshot.served[queue]?.includes(name) ?? false;
}
