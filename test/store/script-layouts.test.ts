// Each script's layout (src/store/script-layouts.ts: the order the marshaller puts its named
// arguments in) against the header of its file: the same KEYS, the same ARGV, in the same positions,
// each slot named by words its header entry says. A header and its marshaller cannot drift apart.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ScriptLayout } from '../../src/store/scripts/script-layout.js';
import { LAYOUTS } from '../../src/store/scripts/script-layouts.js';
import { keyName, parseLuaHeader, saidAt, segments } from './lua-header.js';

const LUA = new URL('../../src/store/scripts/lua/', import.meta.url);
const lower = (s: string) => s.toLowerCase();

function headerOf(l: ScriptLayout) {
  return parseLuaHeader(readFileSync(new URL(`${l.file}.lua`, LUA), 'utf8'));
}

describe('script layouts', () => {
  it('one layout per script file', () => {
    const files = readdirSync(LUA)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.slice(0, -4));
    expect(LAYOUTS.map((l) => l.file).sort()).toEqual(files.sort());
  });

  describe.each(LAYOUTS.map((l) => [l.file, l as ScriptLayout] as const))('%s', (file, l) => {
    const { entries, itemText } = headerOf(l);

    it('its KEYS are the header KEYS, in order', () => {
      const numkeys = /-(\d+)$/.exec(file)?.[1];
      if (numkeys !== undefined) expect(l.keys.length).toBe(Number(numkeys));
      const keys = entries.filter((e) => e.kind === 'KEYS' && !e.perItem);
      expect(keys.map((e) => [e.from, keyName(e.text)])).toEqual(l.keys.map((k, i) => [i + 1, lower(k)]));
      const own = entries.filter((e) => e.kind === 'KEYS' && e.perItem).sort((x, y) => x.from - y.from);
      expect(own.map((e) => keyName(e.text))).toEqual(l.itemKeys.map(lower));
      if (own.length > 0) expect(own[0]!.from).toBe(l.keys.length + 1);
    });

    it('its ARGV are the header ARGV, each in the position its entry names', () => {
      const argv = entries.filter((e) => e.kind === 'ARGV' && e.to !== undefined);
      const covered = argv.flatMap((e) => Array.from({ length: e.to! - e.from + 1 }, (_, i) => e.from + i));
      expect(covered).toEqual(l.argv.map((_, i) => i + 1));
      for (const e of argv) {
        const slots = l.argv.slice(e.from - 1, e.to);
        const at = slots.map((s) => saidAt(s, e.text));
        for (const [i, s] of slots.entries()) {
          expect(at[i], `${file} ARGV[${e.from + i}] "${s}" in "${e.text}"`).toBeGreaterThanOrEqual(0);
        }
        // a range (`ARGV[5..7] limit, actor, source`) names its slots in their order
        expect(at, `${file} ARGV[${e.from}..${e.to}] in order`).toEqual([...at].sort((x, y) => x - y));
      }
    });

    it('each repeated item lists its values in the order the header does', () => {
      if (l.item.length === 0) {
        expect(entries.some((e) => e.kind === 'ARGV' && e.to === undefined)).toBe(false);
        return;
      }
      expect(itemText, `${file}: no "then per ..." nor ARGV[n..] in its header`).toBeDefined();
      const open = entries.find((e) => e.kind === 'ARGV' && e.to === undefined);
      if (open) expect(open.from).toBe(l.argv.length + 1);
      const segs = segments(itemText!);
      let next = 0;
      for (const slot of l.item) {
        const found = segs.findIndex((s, i) => i >= next && saidAt(slot, s) >= 0);
        expect(
          found,
          `${file}: item value "${slot}" after "${segs[next - 1]}" in "${itemText}"`,
        ).toBeGreaterThanOrEqual(0);
        next = found + 1;
      }
    });
  });
});
