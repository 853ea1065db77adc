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
