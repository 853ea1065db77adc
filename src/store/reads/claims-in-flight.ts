import type { Redis } from 'ioredis';
import { type ClaimRow, decodeClaimRow } from '../forms/index.js';
import type { Keys } from '../keys/index.js';

/** A schedule's claim in flight: its row and the lease expiry (`inflight`, Redis ms). */
export interface ClaimInFlight extends ClaimRow {
  leaseExpiresAt: number;
}

/** The claim schedule `id` holds now, or null when it holds none (`schedule:why`). */
export async function claimInFlight(redis: Redis, keys: Keys, id: string): Promise<ClaimInFlight | null> {
  const k = keys.of(id);
  const [claim, lease] = await Promise.all([redis.hget(k.claim, id), redis.zscore(k.inflight, id)]);
  if (claim === null || lease === null) return null;
  return { ...decodeClaimRow(claim), leaseExpiresAt: Number(lease) };
}

/**
 * Active schedules late at `now`: still in `due` at or before `before` (no replica claimed them), or
 * claimed for an occurrence before `before` under a lease that lapsed by `now`. Partition by
 * partition (each read within one slot). For the deployment's health.
 */
export async function lateSchedules(
  redis: Redis,
  keys: Keys,
  before: number,
  now: number,
): Promise<Set<string>> {
  const late = new Set<string>();
  for (const k of keys.all()) {
    const [waiting, lapsed] = await Promise.all([
      redis.zrangebyscore(k.due, '-inf', before),
      redis.zrangebyscore(k.inflight, '-inf', now),
    ]);
    for (const id of waiting) late.add(id);
    if (lapsed.length > 0) {
      const claims = await redis.hmget(k.claim, ...lapsed);
      lapsed.forEach((id, i) => {
        const { fireAt } = decodeClaimRow(claims[i] ?? '');
        if (Number.isFinite(fireAt) && fireAt < before) late.add(id);
      });
    }
  }
  return late;
}

/**
 * Where each schedule stands for its next occurrence: the fire time of its claim in flight, else its
 * due time (`due`, while no replica holds it); absent when neither (paused, completed). The reads go
 * out together (a schedule's two in its own slot).
 */
export async function nextOccurrences(
  redis: Redis,
  keys: Keys,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const read = await Promise.all(
    ids.map((id) => {
      const k = keys.of(id);
      return Promise.all([redis.hget(k.claim, id), redis.zscore(k.due, id)]);
    }),
  );
  const out = new Map<string, number>();
  ids.forEach((id, i) => {
    const [claim, due] = read[i]!;
    const fireAt = claim ? decodeClaimRow(claim).fireAt : Number.NaN;
    if (Number.isFinite(fireAt)) out.set(id, fireAt);
    else if (due !== null) out.set(id, Number(due));
  });
  return out;
}
