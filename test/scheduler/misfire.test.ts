import { describe, expect, it } from 'vitest';
import type { MisfirePolicy } from '../../src/scheduler/contract/schedule-options.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/** The interval and its misfire grace (on a manual clock, a loaded box adds no lateness). */
const PERIOD_MS = 1000;
const GRACE_MS = 500;

/**
 * Every scheduler is stopped across several due times of a 1 s interval (grace 500 ms), then one
 * starts again. Between the last occurrence before the stop and the first on-time one after the
 * restart, each grid instant has exactly one record, as the policy says. Time is manual (the fire
 * loops' clock and Redis's, see manual-time.ts): the outage is Redis's clock moved on, not waited for.
 */
async function outage(policy: MisfirePolicy, extra: { maxCatchUp?: number } = {}) {
  const env = testEnv(`misfire-${policy}`);
  const time = new ManualTime(env.redis, env.prefix);
  try {
    await time.start();
    const define = (m: ReturnType<typeof env.manager>) =>
      m.schedule(async function late() {}, new IntervalTrigger(PERIOD_MS / 1000), {
        misfire: policy,
        misfireGraceMs: GRACE_MS,
        ...extra,
      });
    const a = env.manager();
    time.attach(a);
    define(a);
    let lastBefore = 0;
    a.on('fired', (e) => (lastBefore = Math.max(lastBefore, e.fireAt)));
    await a.start();
    await time.advanceUntil(() => lastBefore > 0, 5 * PERIOD_MS);
    await time.stop(a);
    await time.advance(6.5 * PERIOD_MS); // ≥ 6 due times pass

    const b = env.manager();
    time.attach(b);
    define(b);
    const restartAt = time.now();
    const missedEvents: number[] = [];
    b.on('missed', (e) => missedEvents.push(...e.fireAts));
    let onTime = 0;
    b.on('fired', (e) => {
      if (e.kind === 'scheduled' && e.fireAt > restartAt) onTime = onTime || e.fireAt;
    });
    await b.start();
    await time.advanceUntil(() => onTime > 0, 5 * PERIOD_MS);
    await time.stop(b);
    const records = (await b.history('late')).filter((r) => r.fireAt > lastBefore && r.fireAt < onTime);
    records.sort((x, y) => x.fireAt - y.fireAt);
    const grid: number[] = [];
    for (let t = lastBefore + PERIOD_MS; t < onTime; t += PERIOD_MS) grid.push(t);
    const counts = await b.history.counts('late');
    return { records, grid, missedEvents, counts, restartAt };
  } finally {
    await time.stopAll();
    await env.cleanup();
  }
}

const outcomes = (rs: RunRecord[]) =>
  rs.map((r) => `${r.outcome}${r.reason ? `:${r.reason}` : ''}/${r.kind}`);

describe('misfires after every scheduler was down', () => {
  it("'skip' records each late occurrence as missed and runs none", async () => {
    const { records, grid, missedEvents, counts } = await outage('skip');
    expect(grid.length).toBeGreaterThanOrEqual(6);
    expect(records.map((r) => r.fireAt)).toEqual(grid);
    const late = records.filter((r) => r.outcome === 'missed');
    expect(late.length).toBeGreaterThanOrEqual(5);
    expect(late.every((r) => r.reason === 'misfire')).toBe(true);
    // Only occurrences within the grace period at restart may run, on time.
    expect(records.slice(late.length).every((r) => r.outcome === 'enqueued' && r.kind === 'scheduled')).toBe(
      true,
    );
    expect(missedEvents.sort()).toEqual(late.map((r) => r.fireAt));
    expect(counts.missed).toBe(late.length);
  });

  it("'once' runs a single catch-up for all of them and records the rest as missed", async () => {
    const { records, grid } = await outage('once');
    expect(records.map((r) => r.fireAt)).toEqual(grid);
    const catchUp = records.filter((r) => r.kind === 'catch-up');
    expect(catchUp.length).toBe(1);
    expect(catchUp[0]).toMatchObject({ outcome: 'enqueued' });
    expect(catchUp[0]!.coalesced).toBeGreaterThanOrEqual(5);
    const i = records.indexOf(catchUp[0]!);
    expect(records.slice(0, i).every((r) => r.outcome === 'missed' && r.reason === 'misfire')).toBe(true);
    expect(i).toBe(catchUp[0]!.coalesced! - 1);
  });

  it("'all' runs each late occurrence, at most maxCatchUp (the newest), and records the older ones", async () => {
    const { records, grid } = await outage('all', { maxCatchUp: 2 });
    expect(records.map((r) => r.fireAt)).toEqual(grid);
    const o = outcomes(records);
    const catchUps = o.filter((x) => x === 'enqueued/catch-up').length;
    expect(catchUps).toBe(2);
    const firstCatchUp = o.indexOf('enqueued/catch-up');
    expect(firstCatchUp).toBeGreaterThanOrEqual(3);
    expect(o.slice(0, firstCatchUp).every((x) => x === 'missed:max-catch-up/scheduled')).toBe(true);
    expect(o.slice(firstCatchUp, firstCatchUp + 2)).toEqual(['enqueued/catch-up', 'enqueued/catch-up']);
    expect(o.slice(firstCatchUp + 2).every((x) => x === 'enqueued/scheduled')).toBe(true);
  });
});
