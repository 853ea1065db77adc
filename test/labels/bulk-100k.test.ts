// Selectors at the volume they are claimed for: 100,000 schedules, pausing tenant=acme pauses exactly
// its 25,000, in one audited bulk change. It prints its times (not asserted: the box is shared). In the
// `volume` tier (vitest.config.ts): the volume is the claim; bulk.test.ts proves the verbs at 24.
import { afterEach, describe, expect, it } from 'vitest';
import { JobStatus } from '../../src/index.js';
import type { ScheduleManyItem } from '../../src/scheduler/manager/schedule-many.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const TENANTS = ['acme', 'globex', 'initech', 'umbrella'];

function items(n: number): ScheduleManyItem[] {
  return Array.from({ length: n }, (_, i) => ({
    target: { name: 'report' },
    trigger: { type: 'cron', expression: `${i % 60} * * * *` },
    options: {
      id: `s${i}`,
      labels: { tenant: TENANTS[i % 4]!, ...(i % 3 === 0 && { team: i % 2 === 0 ? 'ops' : 'billing' }) },
    },
  }));
}

describe('bulk changes by selector', () => {
  it('100,000 schedules: pausing tenant=acme pauses exactly its 25,000, in one audited bulk change', async () => {
    env = testEnv('bulk-100k');
    const m = env.manager({ role: 'client', auditLimit: 0 });
    const n = 100_000;
    let t = performance.now();
    const made = await m.scheduleMany(items(n));
    const createMs = performance.now() - t;
    expect(made).toMatchObject({ matched: n, count: n, failed: [] });
    t = performance.now();
    const selected = await m.select('tenant=acme').ids();
    const selectMs = performance.now() - t;
    expect(selected.length).toBe(n / 4);
    t = performance.now();
    const r = await m.select('tenant=acme').pause({ note: 'bulk', by: 'ann' });
    const pauseMs = performance.now() - t;
    expect(r).toMatchObject({ matched: n / 4, count: n / 4, failed: [] });
    const paused = await m.listPage({ status: JobStatus.PAUSED, limit: 0 });
    expect(paused.total).toBe(n / 4);
    expect(
      (await m.listPage({ status: JobStatus.PAUSED, selector: '!tenant,tenant!=acme', limit: 0 })).total,
    ).toBe(0);
    expect((await m.listPage({ status: JobStatus.ACTIVE, selector: 'tenant!=acme', limit: 0 })).total).toBe(
      (3 * n) / 4,
    );
    const trail = await m.bulkChanges();
    expect(trail.filter((c) => c.op === 'pause')).toHaveLength(1);
    expect(trail[0]).toMatchObject({ op: 'pause', selector: 'tenant=acme', count: n / 4, actor: 'ann' });
    console.log(
      `bulk 100k: scheduleMany ${(createMs / 1000).toFixed(1)} s, select tenant=acme (25,000) ${selectMs.toFixed(0)} ms, pause ${(pauseMs / 1000).toFixed(1)} s`,
    );
  }, 600_000);
});
