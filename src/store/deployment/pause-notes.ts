import type { Redis } from 'ioredis';
import { type AuditActor, type AuditConfig, type PauseNote, parsePauseNote } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import type { StatusChange } from '../scripts/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/** The pause notes in Redis (`lua/pause-note-2.lua` keeps a note only beside a paused state). */
export class PauseNotes {
  constructor(
    readonly redis: Redis,
    private readonly keys: Keys,
  ) {
    this.scripts = new ScheduleScripts(redis);
  }

  private readonly scripts: ScheduleScripts;

  /** Store the note of a paused (or orphaned) schedule; false (nothing written) if it is not paused. */
  async set(id: string, note: PauseNote): Promise<boolean> {
    return this.scripts.pauseNote(this.keys, { id, noteJson: JSON.stringify(note) });
  }

  /**
   * Pause an active schedule with its note and its audit entry, in one script (`lua/pause-5.lua`):
   * `done`, `missing` (no such schedule), `wrongStatus` (not active: nothing written).
   */
  pause(
    id: string,
    note: PauseNote,
    audit: AuditConfig,
    by: AuditActor,
  ): Promise<Exclude<StatusChange, 'claimed'>> {
    return this.scripts.pause(this.keys, { id, note, audit, by });
  }

  /** Drop the note of a schedule that is no longer paused (a new pause's note is kept). */
  async clear(id: string): Promise<void> {
    await this.scripts.pauseNote(this.keys, { id, noteJson: '' });
  }

  /** Drop the note whatever the state (the schedule is being removed). */
  async delete(id: string): Promise<void> {
    await this.redis.hdel(this.keys.of(id).pauseNotes, id);
  }

  /** The notes of many schedules, in order (null where none). */
  async getMany(ids: readonly string[]): Promise<(PauseNote | null)[]> {
    if (ids.length === 0) return [];
    // one HMGET per partition (a partition's notes are one key)
    const byPartition = new Map<number, number[]>();
    ids.forEach((id, i) => {
      const p = this.keys.partitionOf(id);
      byPartition.set(p, [...(byPartition.get(p) ?? []), i]);
    });
    const out: (PauseNote | null)[] = new Array(ids.length).fill(null);
    await Promise.all(
      [...byPartition].map(async ([p, at]) => {
        const raw = await this.redis.hmget(this.keys.partition(p).pauseNotes, ...at.map((i) => ids[i]!));
        at.forEach((i, j) => {
          out[i] = parsePauseNote(raw[j] ?? null);
        });
      }),
    );
    return out;
  }
}
