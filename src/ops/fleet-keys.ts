import { hashTag } from '../scheduler/keys.js';

/**
 * The fleet registry's Redis keys, under the deployment's hash tag (`{prefix}`) like every other
 * bullbeat key, so that they stay in one slot.
 */
export interface FleetKeys {
  /** Hash: member id → its description (JSON `FleetMemberInfo`), written at join and on every beat. */
  members: string;
  /** Sorted set: member id scored by the Redis time (ms) past which it counts as dead. */
  beats: string;
}

export function fleetKeys(prefix: string): FleetKeys {
  const base = `${hashTag(prefix)}:bb:fleet`;
  return { members: base, beats: `${base}:beats` };
}
