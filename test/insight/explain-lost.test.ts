// explainOccurrence on a `running` record, pure: "running now" only while its run goes on (its slot
// lease renewed and its BullMQ job active); otherwise the attempt was lost, and what BullMQ does next.
import { describe, expect, it } from 'vitest';
import { explainOccurrence } from '../../src/insight/explain-occurrence.js';
import type { WhyFacts } from '../../src/insight/why-types.js';

const now = Date.UTC(2026, 11, 2, 6, 0, 0);
const fireAt = now - 60_000;

function facts(run: WhyFacts['run']): WhyFacts {
  return {
    now,
    at: now,
    schedule: {
      id: 's',
      name: 's',
      queue: 'q',
      status: 'active',
      orphaned: false,
      error: null,
      nextRunTime: now + 3_600_000,
      createdAt: fireAt - 1000,
      misfire: 'once',
      misfireGraceMs: 60_000,
      maxInstances: 1,
      overlap: 'skip',
      trigger: 'custom trigger (test)',
      triggerKnown: false,
    },
    occurrence: null,
    records: [
      {
        scheduleId: 's',
        fireAt,
        kind: 'scheduled',
        outcome: 'running',
        jobId: 'j1',
        queue: 'q',
        startedAt: fireAt + 5,
        attempts: 2,
        worker: 'host:42',
      },
    ],
    historyLimit: 100,
    claim: null,
    lateThresholdMs: 1000,
    ...(run !== undefined && { run }),
  };
}

describe('a running record', () => {
  it('is running now while its lease is renewed and its job active (or when not looked up)', () => {
    expect(explainOccurrence(facts({ lease: 'live', jobState: 'active' })).cause).toBe('running');
    expect(explainOccurrence(facts({ lease: 'none', jobState: 'active' })).cause).toBe('running');
    expect(explainOccurrence(facts(undefined)).cause).toBe('running');
  });

  it('whose job BullMQ completed ran: its outcome is held behind a burst, or its worker ended first', () => {
    for (const lease of ['none', 'lapsed'] as const) {
      const why = explainOccurrence(facts({ lease, jobState: 'completed' }));
      expect(why.cause).toBe(null);
      expect(why.summary).toBe('it ran: BullMQ completed it (its outcome is not recorded yet)');
    }
  });

  it.each([
    [{ lease: 'lapsed', jobState: 'active' }, 'its slot lease lapsed'],
    [{ lease: 'none', jobState: 'waiting' }, 'its job is waiting in BullMQ, to run again'],
    [{ lease: 'lapsed', jobState: 'failed' }, 'BullMQ failed its job'],
    [{ lease: 'lapsed', jobState: null }, 'its job is gone from BullMQ'],
  ] as const)('%o: lost, never "running now"', (run, next) => {
    const why = explainOccurrence(facts(run));
    expect(why.cause).toBe('lost');
    expect(why.summary).not.toContain('running now');
    expect(why.summary).toContain('attempt 2 was lost with its worker (host:42)');
    expect(why.summary).toContain(next);
    expect(why.facts.at(-1)).toMatchObject({ link: 'outcome', ok: false });
  });
});
