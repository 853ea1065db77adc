import type { ChangeOptions } from './change-options.js';

/** Options of `pause(id, options)`. */
export interface PauseOptions extends ChangeOptions {
  /**
   * Why it is paused, shown beside it (`list()`, `get()`, the CLI, the dashboard) until it is
   * resumed. At most 500 characters (`PAUSE_NOTE_MAX`).
   * @defaultValue `''`
   */
  note?: string;
  /**
   * Who paused it, as the code that authenticated the caller says (shown with the note, and as the
   * audit trail's actor). Never `bullbeat`.
   * @defaultValue this process, `host:pid`
   */
  by?: string;
}
