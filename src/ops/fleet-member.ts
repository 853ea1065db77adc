import type { FleetMemberInfo } from '../store/fleet-members.js';

export type { FleetMemberInfo, FleetRole } from '../store/fleet-members.js';

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
