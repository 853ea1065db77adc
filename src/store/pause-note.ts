import type { Redis } from 'ioredis';
import type { AuditActor } from './audit-entry.js';
import type { AuditConfig } from './audit-trail.js';
import type { Keys } from './keys.js';
import type { StatusChange } from './script-codes.js';
import { StoreScripts } from './store-scripts.js';

/**
 * Why a schedule is paused, who paused it and when: the `notes` hash's values (`keys.pauseNotes`),
 * JSON `{ "note": string, "by": string, "at": epoch ms }`. Written by `pause(id, { note })` and by
 * a pause on failure (its note names the last error); removed on resume and on remove.
 */
export interface PauseNote {
  /** Why (may be empty). At most `PAUSE_NOTE_MAX` characters. */
  note: string;
  /** Who: a user name, `cli:<user>@<host>`, `dashboard:<user>`, `bullbeat` for an automatic pause. */
  by: string;
  /** Whom the caller said it paused for (its own claim, beside `by`); absent when none was named. */
  onBehalfOf?: string;
  /** When it was paused (Redis time, epoch ms). */
  at: number;
}

/** The longest note accepted (characters). */
export const PAUSE_NOTE_MAX = 500;
/** The longest `by` accepted (characters). */
export const PAUSE_BY_MAX = 200;

/** The one reader of a stored note: null for a value that is not a note (never thrown). */
export function parsePauseNote(v: string | null | undefined): PauseNote | null {
  if (!v) return null;
  try {
    const o = JSON.parse(v) as Partial<PauseNote>;
    if (typeof o !== 'object' || o === null || typeof o.at !== 'number') return null;
    return {
      note: typeof o.note === 'string' ? o.note : '',
      by: typeof o.by === 'string' ? o.by : '',
      ...(typeof o.onBehalfOf === 'string' && { onBehalfOf: o.onBehalfOf }),
      at: o.at,
    };
  } catch {
    return null;
  }
}

/** The problem with a note or its author, naming the field (`note`, `by`), or undefined. */
export function pauseNoteProblem(note: unknown, by: unknown): { field: string; reason: string } | undefined {
  if (note !== undefined && typeof note !== 'string') {
    return { field: 'note', reason: `must be a string, got ${typeof note}` };
  }
  if (typeof note === 'string' && note.length > PAUSE_NOTE_MAX) {
    return { field: 'note', reason: `must be at most ${PAUSE_NOTE_MAX} characters, got ${note.length}` };
  }
  if (by !== undefined && (typeof by !== 'string' || by.length === 0 || by.length > PAUSE_BY_MAX)) {
    return { field: 'by', reason: `must be a non-empty string of at most ${PAUSE_BY_MAX} characters` };
  }
  return undefined;
}

/** The pause notes in Redis (`lua/pause-note-2.lua` keeps a note only beside a paused state). */
export class PauseNotes {
  constructor(
    readonly redis: Redis,
    private readonly keys: Keys,
  ) {
    this.scripts = new StoreScripts(redis);
  }

  private readonly scripts: StoreScripts;

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
