import { describe, expect, it } from 'vitest';
import { breaches, type ScheduleFacts } from '../../../src/scheduler/alerts/incident-rules.js';
import type { RunRecord } from '../../../src/store/forms/run-record.js';

const T = Date.UTC(2026, 11, 6, 9, 0, 0);
const run = (fireAt: number, o: Partial<RunRecord> = {}) =>
  ({ fireAt, kind: 'scheduled', outcome: 'succeeded', startedAt: fireAt + 10, ...o }) as RunRecord;
const facts = (o: Partial<ScheduleFacts>): ScheduleFacts => ({
  scheduleId: 's',
  queue: 'q',
  expect: { startedWithinMs: 2000 },
  zone: 'UTC',
  records: [run(T)],
  now: T + 1000,
  queueConsumed: true,
  ...o,
});

describe('late: an occurrence never enqueued, judged against the expected fire time', () => {
  it('opens once the expected time is startedWithin past with no record of it', () => {
    const b = breaches(facts({ expectedFire: T + 1000, now: T + 3000 })).get('late');
    expect(b?.occurrence).toBe(T + 1000);
    expect(b?.why).toMatch(/^not started 2\.0 s after its fire time .*startedWithin 2s.*never enqueued/);
  });

  it('not before startedWithin, nor within the grace of a spread offset or jitter', () => {
    expect(breaches(facts({ expectedFire: T + 1000, now: T + 2999 })).get('late')).toBeNull();
    expect(
      breaches(facts({ expectedFire: T + 1000, now: T + 4000, enqueueGraceMs: 1500 })).get('late'),
    ).toBeNull();
  });

  it('not when a record of it (or a later one) exists, nor when nothing is expected', () => {
    const records = [run(T + 1000, { outcome: 'running' }), run(T)];
    expect(breaches(facts({ expectedFire: T + 1000, now: T + 9000, records })).get('late')).toBeNull();
    expect(breaches(facts({ now: T + 9000 })).get('late')).toBeNull();
  });

  it('an enqueued occurrence that has not started is judged by its record, as before', () => {
    const records = [run(T, { outcome: 'enqueued', startedAt: undefined })];
    const b = breaches(facts({ expectedFire: T + 1000, now: T + 5000, records })).get('late');
    expect(b?.occurrence).toBe(T);
    expect(b?.why).toMatch(/not started 5\.0 s after its fire time/);
  });
});
