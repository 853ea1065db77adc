// Runs with overrides: `schedule:trigger <id> --data '{"n":2}'` (and triggerNow(id, { data, jobOptions }))
// runs the handler with that data; the run's record says what was overridden and by whom; data over the
// size limit and bad job options are refused naming the field, nothing enqueued.
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { cliUser } from '../../src/cli/cli-actor.js';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { runBullbeat } from '../cli/run-bullbeat.js';
import { waitUntil } from '../wait-until.js';
import { useManagerBed } from './manager-bed.js';

const managerBed = useManagerBed();

describe('runs with overrides', () => {
  it('schedule:trigger --data runs the handler with that data, recorded as overridden by the CLI user', async () => {
    const { bed, scheduler, start } = managerBed();
    const seen: { data: unknown; kind: string; priority: unknown }[] = [];
    scheduler.cron('0 3 1 1 *', { id: 'job', data: { n: 1 } })(async function job(ctx: RunContext) {
      const j = ctx.job as Job<{ data?: unknown }>;
      seen.push({ data: j.data.data, kind: ctx.kind, priority: j.opts.priority });
    });
    await start();
    const env = { BULLBEAT_PREFIX: bed.prefix };

    const r = await runBullbeat(['schedule:trigger', 'job', '--data', '{"n":2}'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('with its data overridden');
    await waitUntil(() => seen.length >= 1, 20_000, { what: 'the overridden run' });
    expect(seen[0]).toEqual({ data: { n: 2 }, kind: 'manual', priority: undefined });

    // a plain trigger keeps the schedule's data and is not marked
    await scheduler.triggerNow('job', { jobOptions: { priority: 7 }, by: 'alice' });
    await waitUntil(() => seen.length >= 2, 20_000, { what: 'the second run' });
    expect(seen[1]).toEqual({ data: { n: 1 }, kind: 'manual', priority: 7 });

    const records = await waitUntil(async () => {
      const list = (await scheduler.history.list('job')).filter((x) => x.kind === 'manual');
      return list.filter((x) => x.outcome === 'succeeded').length >= 2 ? list : undefined;
    }, 15_000);
    const byCli = records.find((x) => x.overrides === 'data');
    expect(byCli).toMatchObject({ overrides: 'data', overriddenBy: cliUser(), outcome: 'succeeded' });
    expect(records.find((x) => x.overrides === 'jobOptions')).toMatchObject({ overriddenBy: 'alice' });
    const trail = await scheduler.auditTrail('job');
    expect(
      trail
        .filter((e) => e.op === 'trigger')
        .map((e) => e.actor)
        .sort(),
    ).toEqual(['alice', cliUser()].sort());

    // refused, nothing enqueued
    const jobsBefore = (await bed.queue.getJobCounts()) as Record<string, number>;
    const refused = async (p: Promise<unknown>, field: string) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ScheduleOptionsError);
      expect((err as ScheduleOptionsError).field).toBe(field);
    };
    await refused(scheduler.triggerNow('job', { data: { blob: 'x'.repeat(70_000) } }), 'data');
    await refused(scheduler.triggerNow('job', { jobOptions: { priority: -1 } }), 'jobOptions.priority');
    await refused(
      scheduler.triggerNow('job', { jobOptions: { jobId: 'mine' } as never }),
      'jobOptions.jobId',
    );
    const big = await runBullbeat(
      ['schedule:trigger', 'job', '--data', JSON.stringify({ b: 'x'.repeat(70_000) })],
      { env },
    );
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--data: is \d+ bytes of JSON: at most 65536/);
    const bad = await runBullbeat(['schedule:trigger', 'job', '--data', '{n:2}'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--data: must be JSON');
    expect(await bed.queue.getJobCounts()).toEqual(jobsBefore);
    expect((await scheduler.auditTrail('job')).filter((e) => e.op === 'trigger')).toHaveLength(2);
  }, 120_000);
});
