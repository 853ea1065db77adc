// A schedule with payload 'plain': the job's data is the schedule's own data, and bullbeat's worker
// still finds the occurrence (job id), the arguments and the overlap rules (the stored schedule).
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/queue/pipeline.js';
import { waitUntil } from '../wait-until.js';
import { REDIS } from './helpers.js';
import { useManagerBed } from './manager-bed.js';

const managerBed = useManagerBed();

describe("payload 'plain'", () => {
  it("puts the schedule's data alone on the job; bullbeat's worker runs it with its args, fire time and records", async () => {
    const { bed, scheduler, start } = managerBed();
    const runs: { who: string; fireAt: number; scheduleId: string }[] = [];
    scheduler.every(0.3, { id: 'tick', args: ['ada'], data: { report: 'daily' }, payload: 'plain' })(
      async function tick(who: string, ctx: RunContext) {
        runs.push({ who, fireAt: ctx.fireAt, scheduleId: String(ctx.job?.id) });
      },
    );
    await start();
    await waitUntil(() => runs.length >= 2, 20_000, { what: 'two runs' });
    await scheduler.triggerNow('tick');
    await waitUntil(() => runs.length >= 3, 20_000, { what: 'the manual run' });
    expect(runs[0]).toMatchObject({ who: 'ada', scheduleId: expect.stringMatching(/^bb-tick-/) });
    const records = await waitUntil(async () => {
      const list = await scheduler.history.list('tick');
      return list.filter((r) => r.outcome === 'succeeded').length >= 3 ? list : undefined;
    }, 15_000);
    const done = records.filter((r) => r.outcome === 'succeeded');
    expect(done.map((r) => r.kind)).toContain('manual');
    for (const r of done) expect(runs.map((x) => x.fireAt)).toContain(r.fireAt);
    const queue = new Queue(bed.queueName, { connection: REDIS });
    try {
      const job = await queue.getJob(done[0]!.jobId!);
      expect(job?.data).toEqual({ report: 'daily' });
    } finally {
      await queue.close();
    }
  }, 60_000);

  it("is refused with the field named when it is not 'plain' or 'wrapped'", () => {
    const { scheduler } = managerBed();
    expect(() => scheduler.every(1, { id: 'x', payload: 'raw' as 'plain' })(function x() {})).toThrow(
      /payload.*"wrapped", "plain"/,
    );
  });
});
