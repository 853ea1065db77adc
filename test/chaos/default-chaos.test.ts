// The failover promise in the default configuration (nothing turned off): while at least one
// scheduler replica lives, the death of any other costs no occurrence. Replicas are separate
// processes, SIGKILLed and replaced; plain BullMQ consumers count every run. The cluster version is in
// test/cluster/failover.test.ts; `npm run bench:failover` runs larger shapes.
import { describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { type ChaosPlan, describeChaos, runChaos } from './default-chaos.js';
import { expectKept } from './expect-kept.js';

const SECONDS = Number(process.env.BULLBEAT_DEFAULT_CHAOS_SECONDS ?? 12);

describe('default configuration chaos (one Redis)', () => {
  const where = { url: REDIS_URL };

  it(`3 replicas started together fire the first due occurrence; then one SIGKILLed and replaced every 1-2 s for ${SECONDS} s, 50 schedules every second`, async () => {
    const plan: ChaosPlan = {
      where,
      replicas: 3,
      schedules: 50,
      aligned: true,
      seconds: SECONDS,
      kills: 'churn',
      minKills: 2,
    };
    const r = await runChaos(plan);
    expect(r.kills).toBeGreaterThanOrEqual(2);
    // started together, before the first kill, they fired the first occurrence due
    expect(r.firstLateMs, describeChaos(plan, r)).toBeGreaterThanOrEqual(0);
    expectKept(plan, r);
  }, 300_000);

  it('the active replica SIGKILLed while two others live: what it held is taken over and run', async () => {
    const plan: ChaosPlan = {
      where,
      replicas: 3,
      schedules: 50,
      aligned: true,
      seconds: 9,
      kills: 'active',
      minKills: 2,
    };
    const r = await runChaos(plan);
    expect(r.kills).toBeGreaterThanOrEqual(2);
    expectKept(plan, r);
  }, 300_000);

  it('4 replicas, two SIGKILLed at once, three times', async () => {
    const plan: ChaosPlan = {
      where,
      replicas: 4,
      schedules: 20,
      aligned: true,
      seconds: 10,
      kills: 'pair',
      minKills: 4,
    };
    const r = await runChaos(plan);
    expect(r.kills).toBeGreaterThanOrEqual(4);
    expectKept(plan, r);
  }, 300_000);
});
