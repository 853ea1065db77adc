// The schedule page shows a BullMQ backoff in words, never as raw JSON (which the column cut mid-number).
import { describe, expect, it } from 'vitest';
import { backoffWords } from '../../dashboard/views/schedule-page.js';

describe('backoff on the schedule page', () => {
  it('says the strategy and its delay', () => {
    expect(backoffWords({ type: 'exponential', delay: 1000 })).toBe('exponential from 1.0 s, doubling');
    expect(backoffWords({ type: 'fixed', delay: 30_000 })).toBe('fixed 30.0 s');
    expect(backoffWords(500)).toBe('fixed 500 ms');
    expect(backoffWords({ type: 'jittered', delay: 250 })).toBe('jittered (250 ms)');
    expect(backoffWords({ type: 'exponential' })).toBe('exponential');
    expect(backoffWords({ type: 'exponential', delay: 1000 })).not.toContain('{');
  });
});
