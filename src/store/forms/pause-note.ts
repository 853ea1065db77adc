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
