// CapLead: the lead the fire budget is asked for grows with the jobs on their way, is learnt from adds
// that took long, and is bounded.
import { describe, expect, it } from 'vitest';
import { CapLead } from '../../src/scheduler/fire/cap-lead.js';

describe('CapLead', () => {
  it('grows with the jobs in flight and learns from a slow add', () => {
    const lead = new CapLead();
    const one = lead.take(1, 0);
    one.landed(2);
    const small = lead.take(10, 0).leadMs;
    const first = lead.take(1000, 0);
    const second = lead.take(1000, 0); // the first still in flight: both on their way
    expect(second.leadMs).toBeGreaterThan(first.leadMs);
    expect(first.leadMs).toBeGreaterThan(small);
    first.landed(3000); // 3 s for the 2,000 on their way: slower than assumed
    second.landed(3000);
    const after = lead.take(1000, 10_000);
    expect(after.leadMs).toBeGreaterThan(first.leadMs);
    after.landed(); // failed: nothing learnt, no longer in flight
    expect(lead.take(1000, 20_000).leadMs).toBe(after.leadMs);
  });

  it('is at most 5 s', () => {
    const lead = new CapLead();
    const slow = lead.take(1000, 0);
    slow.landed(1_000_000);
    expect(lead.take(100_000, 0).leadMs).toBe(5000);
  });
});
