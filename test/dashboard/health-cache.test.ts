// The deployment's health (late, failing, errored) walks every active schedule for its failing check:
// seconds at 100,000 schedules. It is reused at least five times as long as it took, so a gauge scraped
// every few seconds does not keep one computation running all the time. A reader that answers slowly
// (each page of views 200 ms late, real Redis behind it) stands for a large deployment.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
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

/** A schedule reader whose pages of views come 200 ms late, counting them. */
class SlowReader extends ScheduleReader {
  pages = 0;
  override async many(ids: readonly string[]) {
    this.pages++;
    await new Promise((r) => setTimeout(r, 200));
    return super.many(ids);
  }
}

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
    // read again at once (within five times `took`): the same computation's result, no page read
    await health.read();
    if (Date.now() - started < 5 * took) expect(reader.pages).toBe(pages);
    // and once that has passed, computed again
    await new Promise((r) => setTimeout(r, 5 * took + 50 - (Date.now() - started)));
    await health.read();
    expect(reader.pages).toBe(2 * pages);
  });
});
