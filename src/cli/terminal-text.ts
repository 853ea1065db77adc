// Text for a terminal. Ids, names, queues, notes and error reasons are written by whoever made the
// schedule (the API, another CLI, code); printed raw, an escape sequence in one clears the screen,
// sets the window title or hides a line. Every human (non-`--json`) printer passes its text here.

/** C0 controls, DEL, C1 controls, and the bidirectional overrides that reorder what is shown. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it escapes
const CONTROL = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what it escapes
const CONTROL_BUT_NEWLINE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
}

/** One value (or one line) as a terminal shows it safely: `a\x1b[2Jb` for `a<ESC>[2Jb`, `a\nb` for a newline. */
export function shown(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/** Text of several lines: each line as `shown` makes it, its line breaks kept. */
export function shownLines(text: string): string {
  return text.replace(CONTROL_BUT_NEWLINE, escapeOne);
}
