import { describe, expect, it } from 'vitest';
import { owedMember, parseOwedMember } from '../../src/store/forms/owed-run.js';

describe('owed run members', () => {
  it('round-trip, an id holding the separator included', () => {
    for (const run of [
      { scheduleId: 'a', fireAt: 1_700_000_000_000, lane: 'backfill', overlap: 'allowAll' },
      { scheduleId: 'x|y|z', fireAt: 5, lane: 'catch-up', overlap: 'bufferAll', coalesced: 12 },
      // a backfill's overlap is a schedule's policy: every one of them is a member's word
      { scheduleId: 's', fireAt: 9, lane: 'backfill', overlap: 'skip' },
      { scheduleId: 's', fireAt: 9, lane: 'backfill', overlap: 'bufferOne' },
      { scheduleId: 's', fireAt: 9, lane: 'backfill', overlap: 'cancelOther' },
    ] as const) {
      expect(parseOwedMember(owedMember(run))).toEqual(run);
    }
    expect(owedMember({ scheduleId: 'r', fireAt: 7, lane: 'backfill', overlap: 'bufferAll' })).toBe(
      '7|b|bufferAll||r',
    );
  });

  it('a member that is not one of ours reads as undefined, never throws', () => {
    for (const bad of ['', '7|b|bufferAll||', 'x|b|bufferAll||r', '7|q|bufferAll||r', '7|b|sometimes||r']) {
      expect(parseOwedMember(bad)).toBeUndefined();
    }
  });
});
