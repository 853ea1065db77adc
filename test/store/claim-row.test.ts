// The claim row (`fireAt|token`): one codec, encode and decode side by side.
import { describe, expect, it } from 'vitest';
import { claimReplica, decodeClaimRow, encodeClaimRow } from '../../src/store/forms/claim-row.js';

describe('claim row', () => {
  it('reads back what it writes, a token with bars and slashes included', () => {
    const row = { fireAt: 1_700_000_000_123, token: 'host-a:41/7|x' };
    expect(encodeClaimRow(row)).toBe('1700000000123|host-a:41/7|x');
    expect(decodeClaimRow(encodeClaimRow(row))).toEqual(row);
  });

  it('names the claiming replica when the token starts with it, none for an older token', () => {
    expect(claimReplica(decodeClaimRow('5|host-a:41/abc'))).toBe('host-a:41');
    expect(claimReplica(decodeClaimRow('5|abc'))).toBeNull();
  });

  it('no row reads as fire time 0 (the late-schedule reader counts a lapsed claim without one as late)', () => {
    expect(decodeClaimRow('')).toEqual({ fireAt: 0, token: '' });
  });
});
