// withSpans (pure): a run standing for a span coalesced while the scheduler was behind keeps the span
// as one list; history shows each occurrence of it as its own `skipped`/`coalesced` record.
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { withSpans } from '../../src/store/reads/record-reads.js';

const rec = (fireAt: number, over: Partial<RunRecord> = {}): RunRecord => ({
  scheduleId: 's',
  fireAt,
  kind: 'scheduled',
  outcome: 'succeeded',
  ...over,
});

describe('withSpans', () => {
  it('expands each span into records placed by fire time, newest first, naming the stand-in', () => {
    const out = withSpans([
      rec(9000),
      rec(7000, { coalescedBefore: [1000, 2000], replica: 'h:1' }),
      rec(4000),
    ]);
    expect(out.map((r) => r.fireAt)).toEqual([9000, 7000, 6000, 5000, 4000]);
    expect(out[2]).toEqual({
      scheduleId: 's',
      fireAt: 6000,
      kind: 'scheduled',
      outcome: 'skipped',
      reason: 'coalesced',
      coalescedBy: 'scheduler-behind',
      standIn: 7000,
      replica: 'h:1',
    });
  });

  it('an occurrence with a record of its own keeps it; records without spans are left as they are', () => {
    const own = rec(6000, { outcome: 'failed' });
    const out = withSpans([rec(7000, { coalescedBefore: [1000, 2000] }), own]);
    expect(out.filter((r) => r.fireAt === 6000)).toEqual([own]);
    expect(out.map((r) => r.fireAt)).toEqual([7000, 6000, 5000]);
    const plain = [rec(2000), rec(1000)];
    expect(withSpans(plain)).toEqual(plain);
  });
});
