// fire-budget-1 by hand: the fire-rate cap's slots. A second holds `cap` evenly spaced slots; none is
// given before Redis time + lead (an add landing after its slot would make its job runnable in a second
// counted for other fires); no second is given more than `cap`, across calls (replicas) too.
import { afterEach, describe, expect, it } from 'vitest';
import { FIRE_BUDGET } from '../../src/store/scripts/script-layouts.js';
import { callScript, StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => bed.cleanup());

const budget = async (cap: number, leadMs: number, instants: number[]): Promise<number[]> =>
  ((await callScript(bed, FIRE_BUDGET, bed.k.fireBudget, cap, leadMs, ...instants)) as number[]).map(Number);

function perSecond(instants: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of instants) out.set(Math.floor(t / 1000), (out.get(Math.floor(t / 1000)) ?? 0) + 1);
  return out;
}

describe('fire-budget-1', () => {
  it('gives an aligned burst evenly spaced slots, none before now + lead, at most cap a second across calls', async () => {
    bed = new StoreBed();
    const now = await bed.now();
    const t = now - 200; // due already (an occurrence enqueued late)
    const lead = 700;
    // two replicas' calls, 300 occurrences each, on one budget
    const a = await budget(
      100,
      lead,
      Array.from({ length: 300 }, () => t),
    );
    const b = await budget(
      100,
      lead,
      Array.from({ length: 300 }, () => t),
    );
    const all = [...a, ...b];
    expect(Math.min(...all)).toBeGreaterThanOrEqual(now + lead);
    const counts = perSecond(all);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(100);
    // the slots of the first second before now + lead are gone, the later seconds full
    const first = Math.floor((now + lead) / 1000);
    const secs = [...counts.keys()].sort((x, y) => x - y);
    for (const s of secs.slice(1, -1)) expect(counts.get(s), `second ${s}`).toBe(100);
    expect(counts.get(first)).toBeLessThanOrEqual(Math.ceil(((first + 1) * 1000 - (now + lead)) / 10));
    // evenly spaced: within a full second, 10 ms apart
    const full = all.filter((x) => Math.floor(x / 1000) === secs[1]).sort((x, y) => x - y);
    expect(full.map((x, i) => x - (secs[1] as number) * 1000 - i * 10)).toEqual(full.map(() => 0));
    expect(new Set(all).size).toBe(all.length);
  });

  it('leaves an occurrence due later than its slot at its own instant', async () => {
    bed = new StoreBed();
    const now = await bed.now();
    const later = (Math.floor(now / 1000) + 3) * 1000 + 500;
    expect(await budget(100, 10, [later, later])).toEqual([later, later]);
  });
});
