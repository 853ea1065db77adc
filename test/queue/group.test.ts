// Groups across real worker processes (`bullbeat worker` from the build): 50 schedules every second
// share a group of max 2; 3 workers run them and one is SIGKILLed mid-run. Checked from the handlers'
// own start and end times, and from the records.
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { groupLeaseName } from '../../src/store/forms/group-options.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { keys } from '../../src/store/keys/keys.js';
import { groupOccupancy } from '../../src/store/reads/lease-store.js';
import { RunHistory } from '../../src/store/reads/run-history.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { REDIS_URL } from '../redis-url.js';
import { silent } from '../scheduler/helpers.js';
import { childFixture } from '../setup/child-fixtures.js';
import { waitUntil } from '../wait-until.js';
import { TestBed } from './helpers.js';
import { WorkerProcess } from './worker-process.js';

interface Interval {
  pid: number;
  scheduleId: string;
  fireAt: number;
  start: number;
  end: number;
}

const GROUP = { key: 'tenant:acme', max: 2 } as const;
const SCHEDULES = 50;
const RUN_MS = 1000;

let bed: TestBed;
let workers: WorkerProcess[] = [];
let manager: SchedulerManager | undefined;

afterEach(async () => {
  await manager?.stop().catch(() => {});
  await manager?.close().catch(() => {});
  manager = undefined;
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await bed.cleanup();
});

async function list<T>(name: string): Promise<T[]> {
  return (await bed.redis.lrange(`${bed.prefix}:test:${name}`, 0, -1)).map((v) => JSON.parse(v) as T);
}

/** The most runs going on at one instant (an end at the same ms as a start is counted first). */
function mostAtOnce(intervals: readonly { start: number; end: number }[]): number {
  const edges = intervals.flatMap((i) => [
    { t: i.start, d: 1 },
    { t: i.end, d: -1 },
  ]);
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) {
    now += e.d;
    most = Math.max(most, now);
  }
  return most;
}

describe('groups across worker processes', () => {
  it('50 schedules every second, max 2, 3 workers, one SIGKILLed: never more than 2 at once', async () => {
    bed = new TestBed();
    const jobs = childFixture('test/queue/fixtures/group-jobs.ts');
    const flags = ['--concurrency', '20', '--lease-ttl-ms', '3000', '--stalled-interval-ms', '2000'];
    workers = await Promise.all(
      Array.from({ length: 3 }, () => WorkerProcess.start(bed.prefix, bed.queueName, flags, jobs)),
    );
    manager = new SchedulerManager({
      prefix: bed.prefix,
      defaultQueue: bed.queueName,
      connection: REDIS_URL,
      logger: silent,
      // every occurrence is enqueued and judged by the workers: none held back by backpressure
      backpressure: false,
    });
    const fired: FiredEvent[] = [];
    manager.on('fired', (e) => fired.push(e));
    for (let i = 0; i < SCHEDULES; i++) {
      manager.schedule({ queue: bed.queueName, name: 'grouped' }, new IntervalTrigger(1), {
        id: `acme-${i}`,
        args: [RUN_MS],
        // no per-schedule limit: only the group decides
        overlap: 'allowAll',
        group: GROUP,
      });
    }
    await manager.start();

    // kill a worker while one of its runs is going on
    const started = await waitUntil(
      async () => {
        const [all, done] = await Promise.all([list<Interval>('started'), list<Interval>('intervals')]);
        const ended = new Set(done.map((d) => `${d.scheduleId}@${d.fireAt}`));
        const running = all.filter((s) => !ended.has(`${s.scheduleId}@${s.fireAt}`));
        return all.length >= 4 ? running.at(-1) : undefined;
      },
      60_000,
      { what: 'a run going on after the first few' },
    );
    const victim = workers.find((w) => w.pid === started.pid) as WorkerProcess;
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    // keep firing past the dead lease's lapse (3 s), then stop the scheduler
    await waitUntil(
      async () => (await list<Interval>('intervals')).some((i) => i.start > killedAt + 3000),
      60_000,
      { what: 'runs after the dead lease lapsed' },
    );
    await manager.stop();

    // every occurrence fired ends run or skipped (the killed one is taken again once BullMQ sees it stalled)
    const history = new RunHistory(bed.redis, keys(bed.prefix));
    const settled = await waitUntil(
      async () => {
        const records = (await Promise.all(fired.map((f) => history.get(f.scheduleId, f.fireAt)))) as (
          | RunRecord
          | undefined
        )[];
        return records.every((r) => r?.outcome === 'succeeded' || r?.outcome === 'skipped')
          ? records
          : undefined;
      },
      90_000,
      { what: 'every fired occurrence run or skipped' },
    );
    const records = settled as RunRecord[];
    const skipped = records.filter((r) => r.outcome === 'skipped');
    const ran = records.filter((r) => r.outcome === 'succeeded');
    expect(fired.length).toBeGreaterThanOrEqual(SCHEDULES * 3);
    expect(records).toHaveLength(fired.length);
    for (const r of skipped) expect(r).toMatchObject({ reason: 'group', group: GROUP.key });
    expect(ran.length).toBeGreaterThanOrEqual(3);
    expect(skipped.length).toBeGreaterThan(ran.length);

    // the handlers' own times: the killed run counts as running from its start until the kill
    const intervals = await list<Interval>('intervals');
    const ends = new Set(intervals.map((i) => `${i.scheduleId}@${i.fireAt}@${i.start}`));
    const cut = (await list<Interval>('started'))
      .filter((s) => s.pid === victim.pid && !ends.has(`${s.scheduleId}@${s.fireAt}@${s.start}`))
      .map((s) => ({ ...s, end: killedAt }));
    expect(cut.length).toBeGreaterThanOrEqual(1);
    const most = mostAtOnce([...intervals, ...cut]);
    expect(most).toBeLessThanOrEqual(GROUP.max);
    expect(most).toBe(GROUP.max); // the group did run two at once
    // every run that succeeded has its handler's interval
    expect(new Set(intervals.map((i) => `${i.scheduleId}@${i.fireAt}`)).size).toBe(ran.length);
    // and the group is empty once everything settled (a run gives its group back just after its
    // record is written: wait for that moment, then assert)
    const occupancy = () => groupOccupancy(bed.redis, keys(bed.prefix), groupLeaseName(GROUP.key));
    await waitUntil(async () => (await occupancy()).running === 0, 10_000, {
      what: 'the group to empty',
    }).catch(() => undefined);
    expect(await occupancy()).toEqual({ running: 0, waiting: 0 });
    console.log(
      `group: ${fired.length} fired, ${ran.length} ran, ${skipped.length} skipped (group), most at once ${most}`,
    );
  }, 240_000);
});
