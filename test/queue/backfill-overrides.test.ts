// Backfill with overrides: `schedule:backfill <id> --data '{...}'` (and backfill(id, { data, jobOptions }))
// runs every occurrence it takes with that data; each run's record says it was overridden and by whom,
// and the backfill's audit entry names the override; data over the size limit or not JSON is refused
// naming the field (the CLI's --data), nothing enqueued and nothing audited. A backfill process killed
// part way leaves the rest owed with its override: the replica's sweep runs them with the same data.
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { cliUser } from '../../src/cli/cli-actor.js';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { keys } from '../../src/store/keys/index.js';
import { runBullbeat } from '../cli/run-bullbeat.js';
import { spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { waitUntil } from '../wait-until.js';
import { useManagerBed } from './manager-bed.js';

const managerBed = useManagerBed();
const HOUR = 3_600_000;

describe('backfill with overrides', () => {
  it('backfill --data runs each taken occurrence with that data, recorded as overridden by whoever asked', async () => {
    const { bed, scheduler, start } = managerBed();
    const seen: { fireAt: number; data: unknown; kind: string; priority: unknown }[] = [];
    scheduler.cron('0 * * * *', { id: 'job', data: { n: 1 } })(async function job(ctx: RunContext) {
      const j = ctx.job as Job<{ data?: unknown }>;
      seen.push({ fireAt: ctx.fireAt, data: j.data.data, kind: ctx.kind, priority: j.opts.priority });
    });
    await start();
    const env = { BULLBEAT_PREFIX: bed.prefix };
    // every hour before the schedule was created was never judged: a backfill runs it
    const hour = Math.floor(Date.now() / HOUR) * HOUR;

    const r = await scheduler.backfill('job', {
      from: hour - 3 * HOUR,
      to: hour,
      data: { n: 2 },
      jobOptions: { priority: 5 },
      by: 'alice',
    });
    expect(r.enqueued).toBe(3);
    await waitUntil(() => seen.length >= 3, 20_000, { what: 'the three backfilled runs' });
    expect(seen.map((s) => ({ ...s, fireAt: undefined }))).toEqual(
      [0, 1, 2].map(() => ({ data: { n: 2 }, kind: 'backfill', priority: 5, fireAt: undefined })),
    );

    const cli = await runBullbeat(
      [
        'schedule:backfill',
        'job',
        '--from',
        new Date(hour - 5 * HOUR).toISOString(),
        '--to',
        new Date(hour - 3 * HOUR).toISOString(),
        '--data',
        '{"n":3}',
      ],
      { env },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('done: 2 enqueued (kind backfill), each with its data overridden');
    await waitUntil(() => seen.length >= 5, 20_000, { what: 'the two backfilled runs of the CLI' });
    expect(seen.slice(3).map((s) => s.data)).toEqual([{ n: 3 }, { n: 3 }]);
    expect(seen.slice(3).map((s) => s.priority)).toEqual([undefined, undefined]);

    const records = await waitUntil(async () => {
      const list = (await scheduler.history.list('job')).filter((x) => x.kind === 'backfill');
      return list.filter((x) => x.outcome === 'succeeded').length >= 5 ? list : undefined;
    }, 15_000);
    const byFire = (t: number) => records.find((x) => x.fireAt === t);
    for (const i of [1, 2, 3]) {
      expect(byFire(hour - i * HOUR)).toMatchObject({ overrides: 'data,jobOptions', overriddenBy: 'alice' });
    }
    for (const i of [4, 5]) {
      expect(byFire(hour - i * HOUR)).toMatchObject({ overrides: 'data', overriddenBy: cliUser() });
    }
    const backfills = (await scheduler.auditTrail('job')).filter((e) => e.op === 'backfill');
    expect(
      backfills.map((e) => ({ actor: e.actor, overrides: e.overrides, runs: e.runs })).reverse(),
    ).toEqual([
      { actor: 'alice', overrides: 'data,jobOptions', runs: 3 },
      { actor: cliUser(), overrides: 'data', runs: 2 },
    ]);

    // a backfill without overrides keeps the schedule's data and is not marked
    await scheduler.backfill('job', { from: hour - 6 * HOUR, to: hour - 5 * HOUR });
    await waitUntil(() => seen.length >= 6, 20_000, { what: 'the plain backfilled run' });
    expect(seen[5]).toMatchObject({ data: { n: 1 }, kind: 'backfill', fireAt: hour - 6 * HOUR });
    const plain = await waitUntil(
      async () =>
        (await scheduler.history.list('job')).find(
          (x) => x.fireAt === hour - 6 * HOUR && x.kind === 'backfill',
        ),
      15_000,
    );
    expect(plain.overrides).toBeUndefined();
    expect((await scheduler.auditTrail('job')).find((e) => e.op === 'backfill')?.overrides).toBeUndefined();

    // refused, nothing enqueued, nothing audited
    const jobsBefore = (await bed.queue.getJobCounts()) as Record<string, number>;
    const trailBefore = (await scheduler.auditTrail('job')).length;
    const range = { from: hour - 9 * HOUR, to: hour - 6 * HOUR };
    const refused = async (p: Promise<unknown>, field: string, reason: RegExp) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ScheduleOptionsError);
      expect((err as ScheduleOptionsError).field).toBe(field);
      expect((err as ScheduleOptionsError).reason).toMatch(reason);
    };
    await refused(
      scheduler.backfill('job', { ...range, data: { blob: 'x'.repeat(70_000) } }),
      'data',
      /is \d+ bytes of JSON: at most 65536/,
    );
    await refused(
      scheduler.backfill('job', { ...range, jobOptions: { priority: -1 } }),
      'jobOptions.priority',
      /./,
    );
    const flags = ['schedule:backfill', 'job', '--from', String(range.from), '--to', String(range.to)];
    const big = await runBullbeat([...flags, '--data', JSON.stringify({ b: 'x'.repeat(70_000) })], { env });
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--data: is \d+ bytes of JSON: at most 65536/);
    const bad = await runBullbeat([...flags, '--data', '{n:2}'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--data: must be JSON');
    expect(await bed.queue.getJobCounts()).toEqual(jobsBefore);
    expect(await scheduler.auditTrail('job')).toHaveLength(trailBefore);
  }, 120_000);

  it('a backfill --data process SIGKILLed part way: the replica sweeps the rest with the same data, recorded as overridden', async () => {
    const { bed, scheduler, start } = managerBed();
    const seen = new Map<number, unknown>();
    scheduler.cron('0 * * * *', { id: 'job', data: { n: 1 } })(async function job(ctx: RunContext) {
      if (ctx.kind === 'backfill') seen.set(ctx.fireAt, (ctx.job as Job<{ data?: unknown }>).data.data);
    });
    await start();
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    const fireAts = [5, 4, 3, 2, 1].map((i) => hour - i * HOUR);
    // paced to 1 a second: killed once it has listed (and taken) the range, it has enqueued one at most
    const cli = spawnBullbeat(
      [
        'schedule:backfill',
        'job',
        '--from',
        String(hour - 5 * HOUR),
        '--to',
        String(hour),
        '--data',
        '{"n":9}',
        '--rate',
        '1',
      ],
      { env: { BULLBEAT_PREFIX: bed.prefix } },
    );
    try {
      await cli.waitFor(/5 occurrences in \[/, 60_000);
      cli.child.kill('SIGKILL');
    } finally {
      cli.kill();
      await cli.exited;
    }
    expect(cli.output()).not.toContain('done:');
    // the killed backfill's override is kept beside its ledger while what it took is owed
    const overridesKey = keys(bed.prefix).backfillOverrides('job');
    expect(await bed.redis.exists(overridesKey)).toBe(1);

    await waitUntil(() => seen.size >= 5, 60_000, { what: 'the five backfilled runs' });
    expect(fireAts.map((t) => seen.get(t))).toEqual(fireAts.map(() => ({ n: 9 })));
    const records = await waitUntil(async () => {
      const list = (await scheduler.history.list('job')).filter((x) => x.kind === 'backfill');
      return list.filter((x) => x.outcome === 'succeeded').length >= 5 ? list : undefined;
    }, 15_000);
    expect(records.map((x) => ({ overrides: x.overrides, overriddenBy: x.overriddenBy }))).toEqual(
      fireAts.map(() => ({ overrides: 'data', overriddenBy: cliUser() })),
    );
    // the kept override went with the last of its occurrences
    expect(await bed.redis.exists(overridesKey)).toBe(0);
  }, 120_000);
});
