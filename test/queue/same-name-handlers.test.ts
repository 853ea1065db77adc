// Schedules whose handlers are different functions of the same name, run by the real worker runtime.
import { describe, expect, it } from 'vitest';
import type { RunContext } from '../../src/queue/pipeline.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { useManagerBed } from './manager-bed.js';

const managerBed = useManagerBed();

describe('handlers of the same name', () => {
  it('five schedules on five different functions named job: each runs its own', async () => {
    const { scheduler, start } = managerBed();
    const ran: { by: string; scheduleId: string }[] = [];
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    for (const id of ids) {
      scheduler.every(1, { id })(async function job(ctx: RunContext) {
        ran.push({ by: id, scheduleId: ctx.scheduleId });
      });
    }
    await start();
    await waitUntil(() => ids.every((id) => ran.some((r) => r.scheduleId === id)), 20_000, {
      what: 'a run of each',
    });
    for (const r of ran) expect(r.by, `a run of ${r.scheduleId} ran ${r.by}'s function`).toBe(r.scheduleId);
    // the outcome is written after the handler returned (behind the burst, at most a second later)
    await waitUntil(
      async () => (await scheduler.history.list('s1')).some((r) => r.outcome === 'succeeded'),
      10_000,
      { what: 'a succeeded record of s1' },
    );
  }, 60_000);

  it("a job that names no schedule of this process (a runtime schedule's) is refused when its name is ambiguous, naming the schedules", async () => {
    const { bed, scheduler, start } = managerBed();
    let runs = 0;
    for (const id of ['a1', 'a2']) {
      scheduler.every(3600, { id })(async function job() {
        runs++;
      });
    }
    const failed: { scheduleId?: string; error: Error }[] = [];
    scheduler.on('failed', (e) => failed.push(e));
    await start();
    // a runtime schedule targeting the queue and the job name (as the API or the CLI make one)
    const runtime = scheduler.schedule({ queue: bed.queueName, name: 'job' }, new IntervalTrigger(3600), {
      id: 'runtime',
    });
    await runtime.saved;
    await scheduler.triggerNow('runtime');
    await waitUntil(() => failed.length > 0, 20_000, { what: 'the refusal' });
    expect(failed[0]?.scheduleId).toBe('runtime');
    expect(failed[0]?.error.message).toMatch(/"job".*"a1".*"a2"/);
    expect(runs).toBe(0);
  }, 60_000);
});
