import { describe, expect, it } from 'vitest';
import {
  backpressureApplies,
  behindPlan,
  coalescedPlan,
  planOccurrence,
  type SpanSoFar,
} from '../../src/scheduler/fire/occurrence-planner.js';
import { resolveOverlap } from '../../src/store/forms/overlap-policy.js';
import { definition, everyMs } from './helpers.js';

const T0 = 1_800_000_000_000; // a fixed reference instant, on the 1 s grid

const def = definition;
const sec = everyMs(1000);

describe('planOccurrence', () => {
  it('enqueues an on-time occurrence and advances to the next one', () => {
    const p = planOccurrence({ def: def(), trigger: sec, fireAt: T0, now: T0 + 3, fired: 0 });
    expect(p.enqueue).toEqual({ fireAt: T0, kind: 'scheduled' });
    expect(p.next).toBe(T0 + 1000);
    expect(p.missed).toEqual([]);
  });

  it('within the grace period several due occurrences each run, one per claim', () => {
    const p = planOccurrence({ def: def(), trigger: sec, fireAt: T0, now: T0 + 5000, fired: 0 });
    expect(p.enqueue?.kind).toBe('scheduled');
    expect(p.next).toBe(T0 + 1000);
  });

  it("misfire 'skip' records every late occurrence as missed and runs none", () => {
    const d = def({ misfire: 'skip', misfireGraceMs: 500 });
    const p = planOccurrence({ def: d, trigger: sec, fireAt: T0, now: T0 + 5200, fired: 0 });
    expect(p.enqueue).toBeUndefined();
    expect(p.missed.map((m) => m.fireAt)).toEqual([T0, T0 + 1000, T0 + 2000, T0 + 3000, T0 + 4000]);
    expect(p.missed.every((m) => m.reason === 'misfire')).toBe(true);
    expect(p.next).toBe(T0 + 5000); // not late yet: the next claim runs it on time
  });

  it("misfire 'once' misses all but the newest late occurrence, which then runs as one catch-up", () => {
    const d = def({ misfire: 'once', misfireGraceMs: 500 });
    const now = T0 + 5200;
    const p = planOccurrence({ def: d, trigger: sec, fireAt: T0, now, fired: 0 });
    expect(p.enqueue).toBeUndefined();
    expect(p.missed.map((m) => m.fireAt)).toEqual([T0, T0 + 1000, T0 + 2000, T0 + 3000]);
    expect(p.coalesceInto).toEqual({ fireAt: T0 + 4000, count: 5 });
    expect(p.next).toBe(T0 + 4000);
    const q = planOccurrence({ def: d, trigger: sec, fireAt: T0 + 4000, now, fired: 0 });
    expect(q.enqueue).toEqual({ fireAt: T0 + 4000, kind: 'catch-up' });
    expect(q.next).toBe(T0 + 5000);
  });

  it("misfire 'all' runs each late occurrence, capped at the newest maxCatchUp", () => {
    const d = def({ misfire: 'all', misfireGraceMs: 500, maxCatchUp: 3 });
    const now = T0 + 5200;
    const p = planOccurrence({ def: d, trigger: sec, fireAt: T0, now, fired: 0 });
    expect(p.enqueue).toBeUndefined();
    expect(p.missed).toEqual([
      { fireAt: T0, reason: 'max-catch-up' },
      { fireAt: T0 + 1000, reason: 'max-catch-up' },
    ]);
    expect(p.next).toBe(T0 + 2000);
    for (const at of [T0 + 2000, T0 + 3000, T0 + 4000]) {
      const q = planOccurrence({ def: d, trigger: sec, fireAt: at, now, fired: 0 });
      expect(q.enqueue).toEqual({ fireAt: at, kind: 'catch-up' });
    }
  });

  it('never runs anything older than catchUpWindowMs', () => {
    const d = def({ misfire: 'all', misfireGraceMs: 500, catchUpWindowMs: 2500 });
    const p = planOccurrence({ def: d, trigger: sec, fireAt: T0, now: T0 + 5200, fired: 0 });
    expect(p.missed.map((m) => [m.fireAt, m.reason])).toEqual([
      [T0, 'catch-up-window'],
      [T0 + 1000, 'catch-up-window'],
      [T0 + 2000, 'catch-up-window'],
    ]);
    expect(p.next).toBe(T0 + 3000);
  });

  it('completes at maxRuns and after endAt', () => {
    const last = planOccurrence({ def: def({ maxRuns: 3 }), trigger: sec, fireAt: T0, now: T0, fired: 2 });
    expect(last.enqueue?.fireAt).toBe(T0);
    expect(last.next).toBeNull();
    const over = planOccurrence({ def: def({ maxRuns: 3 }), trigger: sec, fireAt: T0, now: T0, fired: 3 });
    expect(over.enqueue).toBeUndefined();
    expect(over.next).toBeNull();
    const ended = planOccurrence({
      def: def({ endAt: T0 + 1500 }),
      trigger: sec,
      fireAt: T0 + 1000,
      now: T0 + 1000,
      fired: 0,
    });
    expect(ended.enqueue?.fireAt).toBe(T0 + 1000);
    expect(ended.next).toBeNull();
  });

  it('bounds the walk of a very long outage', () => {
    const d = def({ misfire: 'skip', misfireGraceMs: 0 });
    const p = planOccurrence({ def: d, trigger: everyMs(1), fireAt: T0, now: T0 + 1_000_000, fired: 0 });
    expect(p.missed.length).toBe(10_000);
    expect(p.next).toBe(T0 + 10_000);
  });
});

describe('coalescedPlan (backpressure)', () => {
  it('enqueues nothing, counts the occurrence and keeps the next due time', () => {
    const input = { def: def(), trigger: sec, fireAt: T0, now: T0 + 3, fired: 4 };
    const p = coalescedPlan(input, planOccurrence(input), T0 - 1000);
    expect(p.enqueue).toBeUndefined();
    expect(p.coalesced).toEqual({
      fireAt: T0,
      count: 1,
      fireAts: [T0],
      cause: 'consumer-behind',
      standIn: T0 - 1000,
      span: { from: T0, to: T0, count: 1 },
    });
    expect(p.next).toBe(T0 + 1000);
  });

  it('names the waiting run as the stand-in of every occurrence since it', () => {
    // the job of T0 - 3 s still waits: T0 - 2 s and T0 - 1 s were coalesced before, T0 is now
    const input = { def: def(), trigger: sec, fireAt: T0, now: T0 + 3, fired: 4 };
    const p = coalescedPlan(input, planOccurrence(input), T0 - 3000);
    expect(p.coalesced?.standIn).toBe(T0 - 3000);
    expect(p.coalesced?.span).toEqual({ from: T0 - 2000, to: T0, count: 3 });
  });

  it('goes on from the span an earlier coalesced plan found over the same waiting job: the same span, a step of walk', () => {
    // an uneven trigger (gaps of 1, 2 and 3 s in turn), its steps counted
    let steps = 0;
    const uneven = {
      nextFire(last: number | null, now: number): number {
        steps++;
        const t = last ?? now;
        const k = Math.floor((t - T0) / 6000);
        const o = [0, 1000, 3000, 6000].find((x) => T0 + k * 6000 + x > t)!;
        return T0 + k * 6000 + o;
      },
    };
    const waiting = T0 - 600_000; // ten minutes behind
    const at = (fire: number) => ({ def: def(), trigger: uneven, fireAt: fire, now: fire + 3, fired: 4 });
    // the occurrences after the waiting job, in turn, each coalesced
    const fires: number[] = [];
    for (let o = uneven.nextFire(waiting, 0); fires.length < 6; o = uneven.nextFire(o, 0)) fires.push(o);
    let soFar: SpanSoFar | undefined;
    for (const fire of fires) {
      const input = at(fire);
      steps = 0;
      const full = coalescedPlan(input, planOccurrence(input), waiting);
      const fullSteps = steps;
      steps = 0;
      const cont = coalescedPlan(input, planOccurrence(input), waiting, soFar);
      expect(cont.coalesced).toEqual(full.coalesced);
      if (soFar) expect(steps).toBeLessThan(fullSteps);
      const span = cont.coalesced!.span;
      soFar = { waiting, from: span.from, to: span.to, count: span.count };
    }
    expect(soFar).toEqual({ waiting, from: fires[0], to: fires[5], count: 6 });
  });

  it('ignores a span found over another waiting job, or ending at or after this occurrence', () => {
    const input = { def: def(), trigger: sec, fireAt: T0, now: T0 + 3, fired: 4 };
    const full = coalescedPlan(input, planOccurrence(input), T0 - 3000);
    const other = { waiting: T0 - 9000, from: T0 - 8000, to: T0 - 1000, count: 8 };
    expect(coalescedPlan(input, planOccurrence(input), T0 - 3000, other).coalesced).toEqual(full.coalesced);
    const later = { waiting: T0 - 3000, from: T0 - 2000, to: T0, count: 3 };
    expect(coalescedPlan(input, planOccurrence(input), T0 - 3000, later).coalesced).toEqual(full.coalesced);
  });

  it('a coalesced occurrence does not count for maxRuns: the schedule goes on', () => {
    const input = { def: def({ maxRuns: 5 }), trigger: sec, fireAt: T0, now: T0 + 3, fired: 4 };
    expect(planOccurrence(input).next).toBeNull(); // had it run, it would have been the last
    expect(coalescedPlan(input, planOccurrence(input), T0 - 1000).next).toBe(T0 + 1000);
    const ending = { ...input, def: def({ maxRuns: 5, endAt: T0 + 500 }) };
    expect(coalescedPlan(ending, planOccurrence(ending), T0 - 1000).next).toBeNull(); // endAt still ends it
  });

  it("applies unless the schedule asks for every occurrence (misfire 'all' with bufferAll or allowAll)", () => {
    const run = (overlap: 'skip' | 'bufferAll' | 'allowAll' | 'cancelOther') => ({
      run: resolveOverlap({ overlap }),
    });
    expect(backpressureApplies(def())).toBe(true);
    expect(backpressureApplies(def({ misfire: 'all' }))).toBe(true);
    expect(backpressureApplies(def(run('allowAll')))).toBe(true);
    expect(backpressureApplies(def({ misfire: 'all', ...run('cancelOther') }))).toBe(true);
    expect(backpressureApplies(def({ misfire: 'all', ...run('bufferAll') }))).toBe(false);
    expect(backpressureApplies(def({ misfire: 'all', ...run('allowAll') }))).toBe(false);
  });
});

describe('behindPlan (backpressure while the scheduler runs behind)', () => {
  it('never collapses: claims each a period late or more still run one occurrence each', () => {
    // a replica that claims every 1.5 s a schedule due every second: every claim is behind
    let fireAt = T0;
    const ran: number[] = [];
    for (let claimAt = T0 + 1500; claimAt < T0 + 30_000; claimAt += 1500) {
      if (fireAt > claimAt) continue;
      const input = { def: def(), trigger: sec, fireAt, now: claimAt, fired: ran.length };
      const p = behindPlan(input, planOccurrence(input)) ?? planOccurrence(input);
      if (p.enqueue) ran.push(p.enqueue.fireAt);
      fireAt = p.next!;
    }
    expect(ran.length).toBeGreaterThanOrEqual(18); // one per claim
    for (let i = 1; i < ran.length; i++) expect(ran[i]!).toBeGreaterThan(ran[i - 1]!);
  });

  it('a claim later than a period: the latest due runs now, standing for the claimed one and those since', () => {
    const input = { def: def(), trigger: sec, fireAt: T0, now: T0 + 3500, fired: 2 };
    const p = behindPlan(input, planOccurrence(input));
    // T0, T0 + 1 s and T0 + 2 s are coalesced into T0 + 3 s, enqueued by this claim; T0 + 4 s comes next
    expect(p?.enqueue).toEqual({ fireAt: T0 + 3000, kind: 'scheduled' });
    expect(p?.lateMs).toBe(500);
    expect(p?.coalesced).toEqual({
      fireAt: T0,
      count: 3,
      fireAts: [T0, T0 + 1000, T0 + 2000],
      cause: 'scheduler-behind',
      standIn: T0 + 3000,
      span: { from: T0, to: T0 + 2000, count: 3 },
    });
    expect(p?.next).toBe(T0 + 4000);
    expect(p?.missed).toEqual([]);
  });

  it('the next occurrence due exactly now counts as due', () => {
    const input = { def: def(), trigger: sec, fireAt: T0, now: T0 + 1000, fired: 0 };
    expect(behindPlan(input, planOccurrence(input))).toMatchObject({
      enqueue: { fireAt: T0 + 1000 },
      coalesced: { count: 1 },
      next: T0 + 2000,
    });
  });

  it('late by less than a period, or on time: left to run', () => {
    for (const now of [T0 - 20, T0, T0 + 999]) {
      const input = { def: def(), trigger: sec, fireAt: T0, now, fired: 0 };
      expect(behindPlan(input, planOccurrence(input))).toBeUndefined();
    }
  });

  it('the last run of a schedule (maxRuns, endAt) is never coalesced away', () => {
    const last = { def: def({ maxRuns: 3 }), trigger: sec, fireAt: T0, now: T0 + 5000, fired: 2 };
    expect(behindPlan(last, planOccurrence(last))).toBeUndefined();
    const ending = { def: def({ endAt: T0 + 500 }), trigger: sec, fireAt: T0, now: T0 + 5000, fired: 0 };
    expect(behindPlan(ending, planOccurrence(ending))).toBeUndefined();
    // the walk stops at endAt: the latest occurrence inside it runs, and is the last
    const bounded = { def: def({ endAt: T0 + 2000 }), trigger: sec, fireAt: T0, now: T0 + 5000, fired: 0 };
    expect(behindPlan(bounded, planOccurrence(bounded))).toMatchObject({
      enqueue: { fireAt: T0 + 2000 },
      coalesced: { count: 2 },
      next: null,
    });
  });

  it('past the misfire grace the misfire policy decides, not backpressure', () => {
    const input = { def: def({ misfireGraceMs: 100 }), trigger: sec, fireAt: T0, now: T0 + 5000, fired: 0 };
    const plan = planOccurrence(input);
    expect(plan.enqueue).toBeUndefined(); // misfire 'once': coalesced into one catch-up run
    expect(behindPlan(input, plan)).toBeUndefined();
  });

  it('bounds the walk', () => {
    const input = { def: def(), trigger: everyMs(1), fireAt: T0, now: T0 + 50_000, fired: 0 };
    const p = behindPlan(input, planOccurrence(input));
    expect(p?.coalesced?.count).toBe(10_000);
    expect(p?.coalesced?.fireAts).toHaveLength(100); // the newest hundred
    expect(p?.coalesced?.fireAts.at(-1)).toBe(T0 + 9_999);
    expect(p?.enqueue?.fireAt).toBe(T0 + 10_000);
    expect(p?.next).toBe(T0 + 10_001); // still due: the next claim walks on from there
  });
});
