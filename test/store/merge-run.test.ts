// The run record merge and the history trim, through RunHistory (merge-run-4.lua): the one rule.
import { afterEach, describe, expect, it } from 'vitest';
import { RunHistory } from '../../src/store/run-history.js';
import { StoreBed } from './helpers.js';

let bed: StoreBed;
afterEach(async () => {
  await bed.cleanup();
});

describe('merge-run (RunHistory.merge)', () => {
  it('a manual run recorded enqueued after its worker started keeps the worker outcome', async () => {
    bed = new StoreBed();
    const h = new RunHistory(bed.redis, bed.k, 10);
    await h.merge('s', 1000, true, { kind: 'manual', outcome: 'succeeded', finishedAt: 1500 }, ['runs']);
    await h.merge('s', 1000, true, { kind: 'manual', outcome: 'enqueued', enqueuedAt: 1000, jobId: 'j' });
    const rec = await h.get('s', 1000, true);
    expect(rec?.outcome).toBe('succeeded');
    expect(rec).toMatchObject({ finishedAt: 1500, enqueuedAt: 1000, jobId: 'j' });
  });
});
