// The schedule page's lateness is how late the occurrence began: its first attempt, not its last retry.
import { describe, expect, it } from 'vitest';
import { durationOf, latenessOf } from '../../dashboard/views/schedule-page.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';

const FIRE = Date.UTC(2026, 0, 1, 9, 0, 0);

function run(over: Partial<RunRecord>): RunRecord {
  return { scheduleId: 's', fireAt: FIRE, kind: 'scheduled', outcome: 'succeeded', ...over } as RunRecord;
}

describe('lateness on the schedule page', () => {
  it('of a run retried twice is its first attempt start, not the last one', () => {
    const r = run({
      enqueuedAt: FIRE + 5,
      startedAt: FIRE + 60_000, // the third attempt, after two backoffs
      finishedAt: FIRE + 61_000,
      attempts: 3,
      previousAttempts: [
        { attempt: 1, outcome: 'failed', error: 'boom', startedAt: FIRE + 20, endedAt: FIRE + 30 },
        { attempt: 2, outcome: 'failed', error: 'boom', startedAt: FIRE + 20_000, endedAt: FIRE + 20_010 },
      ],
    });
    expect(latenessOf(r)).toBe(20);
    expect(durationOf(r)).toBe(1000); // the attempt that ended the run
  });

  it('of a run that did not retry is its start; of one never started, its enqueue', () => {
    expect(latenessOf(run({ enqueuedAt: FIRE + 5, startedAt: FIRE + 40 }))).toBe(40);
    expect(latenessOf(run({ outcome: 'enqueued', enqueuedAt: FIRE + 5 }))).toBe(5);
    expect(latenessOf(run({ outcome: 'missed' }))).toBeNull();
  });
});
