// The deployment's health (late, failing, errored) walks every active schedule for its failing check:
// seconds at 100,000 schedules. It is reused at least five times as long as it took, so a gauge scraped
// every few seconds does not keep one computation running all the time. A reader that answers slowly
// (each page of views 200 ms late, real Redis behind it) stands for a large deployment. Only `Date` is
// faked: the reader's lateness and the wait for the cache to lapse move the clock the cache reads,
// so the computation takes exactly 600 ms and the cache's end is met to the millisecond.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeploymentHealthReader } from '../../dashboard/deployment-health.js';
import { ScheduleReader } from '../../dashboard/schedule-reader.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { ScheduleIndex } from '../../src/store/reads/schedule-index.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { deleteKeys, quietLogger } from './harness.js';

const prefix = `bbdash-health-${randomUUID().slice(0, 8)}`;
const m = new SchedulerManager({
  prefix,
  role: 'client',
  defaultQueue: `${prefix}-q`,
  logger: quietLogger(),
});
afterAll(async () => {
  await m.close();
  await deleteKeys([`{${prefix}}*`]);
});

/** A schedule reader whose pages of views come 200 ms late (on the faked `Date`), counting them. */
class SlowReader extends ScheduleReader {
  pages = 0;
  override async many(ids: readonly string[]) {
    this.pages++;
    const views = await super.many(ids);
    vi.setSystemTime(Date.now() + 200);
    return views;
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the deployment health', () => {
  it('is reused at least five times as long as it took, however short cacheMs is', async () => {
    await Promise.all(
      Array.from({ length: 450 }, (_, i) => m.schedule({ name: `s${i}` }, new IntervalTrigger(60)).saved),
    );
    const { redis, keys, options } = internalsOf(m);
    const reader = new SlowReader(redis, keys, options.historyLimit, Date.now, (names) =>
      m.calendars.current(names),
    );
    const health = new DeploymentHealthReader(redis, keys, new ScheduleIndex(redis, keys), reader, {
      lateThresholdMs: 1000,
      cacheMs: 1,
    });
    const started = Date.now();
    await health.read();
    const took = Date.now() - started;
    const pages = reader.pages;
    expect(pages).toBe(3); // 450 schedules, 200 a page
    expect(took).toBe(600);
    // read again at once, and to the last millisecond within five times `took`: the same computation's
    // result, no page read
    await health.read();
    expect(reader.pages).toBe(pages);
    vi.setSystemTime(started + 5 * took - 1);
    await health.read();
    expect(reader.pages).toBe(pages);
    // and once that has passed, computed again
    vi.setSystemTime(started + 5 * took);
    await health.read();
    expect(reader.pages).toBe(2 * pages);
  });
});
