// backfill --only failed: over a range of 10 occurrences of which 3 failed, exactly those 3 run again,
// once each (the ledger decides), listed first by a dry run; also when two such backfills race and one
// of them (a CLI process) is SIGKILLed while it enqueues (its taken runs are owed: a replica's sweep adds them).
import { describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { spawnBullbeat } from '../cli/spawn-bullbeat.js';

import { useManagerBed } from '../queue/manager-bed.js';
import { waitUntil } from '../wait-until.js';

const managerBed = useManagerBed();
const FAIL = new Set([2, 5, 7]);

describe('backfill --only failed', () => {
  it('re-runs exactly the 3 failed of 10, once each, with two racing backfills and one SIGKILLed', async () => {
    const { bed, scheduler, start } = managerBed();
    const order: number[] = []; // distinct fire times, in the order first seen
    const backfilled: number[] = [];
    let phase: 'fire' | 'backfill' = 'fire';
    scheduler.every(0.2, { id: 'flaky', attempts: 1 })(async function flaky(ctx: RunContext) {
      if (ctx.kind === 'backfill') {
        backfilled.push(ctx.fireAt);
        return;
      }
      if (phase !== 'fire' || ctx.kind !== 'scheduled') return;
      if (!order.includes(ctx.fireAt)) order.push(ctx.fireAt);
      if (FAIL.has(order.indexOf(ctx.fireAt))) throw new Error('flaky failure');
    });
    await start();
    await waitUntil(() => order.length >= 10, 30_000, { what: 'ten occurrences' });
    await scheduler.pause('flaky');
    phase = 'backfill';
    const ten = order.slice(0, 10);
    const failed = ten.filter((_, i) => FAIL.has(i));
    const from = ten[0] as number;
    const to = (ten[9] as number) + 1;
    await waitUntil(async () => {
      const h = await scheduler.history.list('flaky', 100);
      const done = h.filter(
        (r) => ten.includes(r.fireAt) && (r.outcome === 'succeeded' || r.outcome === 'failed'),
      );
      return done.length >= 10 ? true : undefined;
    }, 15_000);

    // the dry run lists them first: exactly the failed ones to enqueue
    const dry = await scheduler.backfill('flaky', { from, to, only: 'failed', dryRun: true });
    // (under load backpressure may coalesce an occurrence between them: recorded skipped, so not-selected)
    expect(dry.occurrences.map((o) => o.fireAt)).toEqual(expect.arrayContaining(ten));
    expect(dry.occurrences.filter((o) => o.status === 'to-enqueue').map((o) => o.fireAt)).toEqual(failed);
    const others = new Set(dry.occurrences.filter((o) => o.status !== 'to-enqueue').map((o) => o.status));
    expect(
      [...others].every((st) => st === 'ran' || st === 'not-selected'),
      [...others].join(),
    ).toBe(true);
    await expect(scheduler.backfill('flaky', { from, to, only: 'broken' as never })).rejects.toThrow(
      ScheduleOptionsError,
    );

    // two backfills race: a CLI process (paced to 1 a second, SIGKILLed once it has listed the range)
    // and this process
    const cli = spawnBullbeat(
      [
        'schedule:backfill',
        'flaky',
        '--from',
        String(from),
        '--to',
        String(to),
        '--only',
        'failed',
        '--rate',
        '1',
      ],
      { env: { BULLBEAT_PREFIX: bed.prefix } },
    );
    try {
      const mine = scheduler.backfill('flaky', { from, to, only: 'failed' });
      await cli.waitFor(/occurrences? in \[/, 60_000);
      cli.child.kill('SIGKILL');
      await mine;
    } finally {
      cli.kill();
      await cli.exited;
    }
    // whatever the killed one took is owed: a replica's sweep enqueues it
    await waitUntil(() => backfilled.length >= 3, 30_000, { what: 'three backfilled runs' });
    // and nothing more comes: a third backfill finds them all taken
    const again = await scheduler.backfill('flaky', { from, to, only: 'failed' });
    expect(again.enqueued).toBe(0);
    expect(again.occurrences.filter((o) => failed.includes(o.fireAt)).map((o) => o.status)).toEqual([
      'backfilled',
      'backfilled',
      'backfilled',
    ]);
    await waitUntil(async () => {
      const c = await bed.queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
      return Object.values(c).every((n) => n === 0) ? true : undefined;
    }, 15_000);
    expect([...backfilled].sort((a, b) => a - b)).toEqual(failed);
  }, 180_000);
});
