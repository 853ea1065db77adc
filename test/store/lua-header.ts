// Reads a store script's header comment (`lua/<name>-<numkeys>.lua`): what it says each `KEYS[i]`,
// `ARGV[i]` and each repeated item's values are. For the layout test (script-layouts.test.ts).

/** One header entry: the slots it names (`ARGV[5..7]`: three) and what it says of them. */
export interface HeaderEntry {
  kind: 'KEYS' | 'ARGV';
  /** 1-based; for `KEYS[8 + 3j]` the offset within an item's keys (8, 9, 10). */
  from: number;
  /** Inclusive; undefined: open (`ARGV[10..]`, what follows is repeated). */
  to: number | undefined;
  /** `KEYS[8 + 3j]`: a key of each item of a `-n` script. */
  perItem: boolean;
  text: string;
}

export interface LuaHeader {
  entries: HeaderEntry[];
  /** What a `then per <item>:` paragraph (or an open `ARGV[n..]`) lists of each item. */
  itemText: string | undefined;
}

const MARKER = /(KEYS|ARGV)\[(\d+)(\s*\+\s*\d+j)?(?:(\.\.\.?)(\d+)?)?\]/g;

const indent = (line: string) => line.length - line.trimStart().length;
const startsWithMarker = (line: string) => /^(KEYS|ARGV)\[/.test(line.trimStart());

export function parseLuaHeader(source: string): LuaHeader {
  const header = source.slice(0, source.indexOf(']]'));
  const lines = header.split('\n');
  // the per-run values of the run scripts (`A[i] text`), named in their item lists
  const a = new Map<number, string>();
  const entries: HeaderEntry[] = [];
  let itemText: string | undefined;
  // KEYS and ARGV entries are read in the `Input:` section only (prose elsewhere names them too)
  let input = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*Input:/.test(line)) input = true;
    if (/^\s*Output/.test(line)) input = false;
    const aLine = /^\s*A\[(\d+)\]\s+(.*)$/.exec(line);
    if (aLine) {
      a.set(Number(aLine[1]), aLine[2] + continuation(lines, i, indent(line)));
      continue;
    }
    if (!input) continue;
    if (/^\s*then per /.test(line)) {
      let text = line.trim();
      for (let j = i + 1; j < lines.length && lines[j]!.trim() !== '' && !startsWithMarker(lines[j]!); j++)
        text += ` ${lines[j]!.trim()}`;
      itemText = text;
      continue;
    }
    if (!startsWithMarker(line)) continue;
    const text = line.trim() + continuation(lines, i, indent(line));
    // a marker opens an entry at the line's start or after a comma, a gap or another marker; one in
    // the words (`built from KEYS[1]`, `<ARGV[1]>`) only mentions it
    const marks = [...text.matchAll(MARKER)].filter(
      (m) => m.index === 0 || /(,\s+|\s{2,}|\]\s)$/.test(text.slice(0, m.index)),
    );
    marks.forEach((m, k) => {
      const after = m.index + m[0].length;
      const own = text.slice(after, marks[k + 1]?.index ?? text.length).trim();
      const from = Number(m[2]);
      const to = m[4] === undefined ? from : m[5] === undefined ? undefined : Number(m[5]);
      entries.push({ kind: m[1] as 'KEYS' | 'ARGV', from, to, perItem: m[3] !== undefined, text: own });
    });
  }
  // `ARGV[8] ARGV[9] the range`: a marker with no words of its own shares the next one's
  for (let i = entries.length - 2; i >= 0; i--) {
    if (entries[i]!.text === '') entries[i]!.text = entries[i + 1]!.text;
  }
  const open = entries.find((e) => e.kind === 'ARGV' && e.to === undefined);
  if (open) itemText = open.text;
  if (itemText !== undefined)
    itemText = itemText.replace(/A\[(\d+)\]/g, (_, n) => `(${a.get(Number(n)) ?? ''})`);
  return { entries, itemText };
}

function continuation(lines: readonly string[], at: number, own: number): string {
  let text = '';
  for (let j = at + 1; j < lines.length; j++) {
    const next = lines[j]!;
    if (next.trim() === '' || indent(next) <= own) break;
    text += ` ${next.trim()}`;
  }
  return text;
}

/** A name's words, lower case: `leaseMs` → lease, ms; `runs:<id>` → runs. */
export function words(text: string): string[] {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Where a slot name is said in `text`: the index (in `words(text)`) of its last word, each of its words
 * beginning a word of the text; -1 when one is not there.
 */
export function saidAt(name: string, text: string): number {
  const said = words(text);
  let at = -1;
  for (const w of words(name)) {
    at = said.findIndex((s) => s.startsWith(w));
    if (at < 0) return -1;
  }
  return at;
}

/** The key an entry names: its first word as keys.ts spells it (`owed-runs` → owedruns). */
export function keyName(text: string): string {
  return (text.split(/\s/)[0] ?? '')
    .replace(/<[^>]*>/g, '')
    .replace(/[^a-zA-Z0-9]/g, '')
    .toLowerCase();
}

/** An item list split at its commas, semicolons and colons, and at the `i + n` that number a run's values. */
export function segments(text: string): string[] {
  return text
    .split(/[,;:]|\si(?:\s*\+\s*\d+)?\s+(?=\S)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
