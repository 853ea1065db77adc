import { ScheduleStatus } from './job-status.js';

/**
 * The state row of a schedule (the `state` hash): `status|fired|lastFire|createdAt|fingerprint|source`.
 * This file is its one codec in TypeScript; the Lua scripts read it with `includes/state.lua`.
 */
export const StateCode = {
  active: 'a',
  paused: 'p',
  completed: 'c',
  /** A code schedule that no deployed code defines: paused, shown as paused and flagged orphaned. */
  orphaned: 'o',
  /** It cannot be planned or enqueued; its reason is in the `errors` hash. */
  errored: 'e',
} as const;

export type StateCode = (typeof StateCode)[keyof typeof StateCode];

/** A schedule's row in the `state` hash. */
export interface ScheduleState {
  status: StateCode;
  /** Runs enqueued so far. */
  fired: number;
  lastFireAt: number | null;
  createdAt: number;
  fingerprint: string;
  source: 'code' | 'runtime';
}

const CODES: ReadonlySet<string> = new Set(Object.values(StateCode));

/** Decode a state row (null when there is none). An unknown status letter reads as active. */
export function parseState(raw: string | null | undefined): ScheduleState | null {
  if (!raw) return null;
  const [status, fired, last, created, fp, src] = raw.split('|');
  return {
    status: status !== undefined && CODES.has(status) ? (status as StateCode) : StateCode.active,
    fired: Number(fired || 0),
    lastFireAt: last ? Number(last) : null,
    createdAt: Number(created || 0),
    fingerprint: fp ?? '',
    source: src === 'r' ? 'runtime' : 'code',
  };
}

/** Encode a state row (the inverse of `parseState`). */
export function formatState(s: ScheduleState): string {
  return [
    s.status,
    s.fired,
    s.lastFireAt ?? '',
    s.createdAt,
    s.fingerprint,
    s.source === 'runtime' ? 'r' : 'c',
  ].join('|');
}

const STATUS: Record<StateCode, ScheduleStatus> = {
  a: ScheduleStatus.ACTIVE,
  p: ScheduleStatus.PAUSED,
  o: ScheduleStatus.PAUSED,
  c: ScheduleStatus.COMPLETED,
  e: ScheduleStatus.ERRORED,
};

/** The public status (Sillo's `ScheduleStatus`) of a stored state: the one mapping from state codes. */
export function statusOf(s: Pick<ScheduleState, 'status'>): ScheduleStatus {
  return STATUS[s.status];
}
