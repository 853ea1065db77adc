import type { FireLoopDeps } from './fire-loop-types.js';

/** Stop notices kept: a notice matters only to occurrences claimed before it and not yet enqueued. */
const STOPS_KEPT = 10_000;

/**
 * Which schedules were stopped (paused, removed, orphaned) and when, as a sequence number: an
 * occurrence claimed when the count was `seq` must not be enqueued if its schedule's notice is newer.
 */
export class StopNotices {
  private count = 0;
  private readonly latest = new Map<string, number>();

  /** The notices counted so far (take it before a claim). */
  get seq(): number {
    return this.count;
  }

  get size(): number {
    return this.latest.size;
  }

  record(id: string): void {
    this.latest.delete(id);
    this.latest.set(id, ++this.count);
    if (this.latest.size > STOPS_KEPT) this.latest.delete(this.latest.keys().next().value!);
  }

  /** True when `id` was stopped after the count was `seq`. */
  stoppedSince(id: string, seq: number): boolean {
    return (this.latest.get(id) ?? 0) > seq;
  }
}

/**
 * Read the schedules `ids` again (one read) and stop those no longer active (paused, removed, orphaned,
 * errored) as their stop notice would have: for a wake subscriber that reconnected, whose notices
 * published meanwhile were lost. A failed read is logged; nothing is stopped.
 */
export async function stopInactive(
  ids: readonly string[],
  deps: Pick<FireLoopDeps, 'store' | 'logger'>,
  stop: (id: string) => void,
): Promise<void> {
  if (ids.length === 0) return;
  try {
    const rows = await deps.store.getMany([...ids]);
    const active = new Set(rows.filter((r) => r.state.status === 'a').map((r) => r.def.id));
    for (const id of ids) if (!active.has(id)) stop(id);
  } catch (err) {
    deps.logger.warn({ err }, 'bullbeat: could not re-read held schedules after a reconnect');
  }
}
