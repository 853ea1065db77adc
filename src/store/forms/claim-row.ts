// A schedule's claim in flight, as the `claim` hash holds it (id → `fireAt|token`): written by
// `claim-6.lua` and `ScheduleStore`, compared whole by `complete-n.lua`. Tokens start with the claiming
// replica (`host:pid/…`); those of earlier releases name none.

/** One claim row, decoded. */
export interface ClaimRow {
  /** The claimed occurrence's fire time (ms). */
  fireAt: number;
  /** The claim's token: a completion must present the same row. */
  token: string;
}

export function encodeClaimRow(row: ClaimRow): string {
  return `${row.fireAt}|${row.token}`;
}

/** A row as stored; `''` (no row) reads as fire time 0 with no token. */
export function decodeClaimRow(raw: string): ClaimRow {
  const bar = raw.indexOf('|');
  return bar < 0
    ? { fireAt: Number(raw), token: '' }
    : { fireAt: Number(raw.slice(0, bar)), token: raw.slice(bar + 1) };
}

/** The replica that took a claim (`host:pid`), or null for a token that names none. */
export function claimReplica(row: ClaimRow): string | null {
  const slash = row.token.indexOf('/');
  return slash > 0 ? row.token.slice(0, slash) : null;
}
