import { keys } from '../store/keys.js';

/** The fleet registry's Redis keys (see `Keys.fleet` and `Keys.fleetBeats` in src/store/keys.ts). */
export interface FleetKeys {
  members: string;
  beats: string;
}

export function fleetKeys(prefix: string): FleetKeys {
  const k = keys(prefix);
  return { members: k.fleet, beats: k.fleetBeats };
}
