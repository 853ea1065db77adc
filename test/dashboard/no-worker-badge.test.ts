import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { quietLogger, startTestDashboard, type TestDashboard } from './harness.js';

describe('a schedule that no worker consumes', () => {
  let t: TestDashboard;

  beforeAll(async () => {
    const id = randomUUID().slice(0, 8);
    const prefix = `bbdash-noworker-${id}`;
    const queue = `${prefix}-q`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'scheduler',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    scheduler.schedule({ name: 'orphan-job' }, new IntervalTrigger(0.5));
    await scheduler.start();
    t = await startTestDashboard({ scheduler, prefix, queue });
  });
  afterAll(async () => {
    await t?.scheduler.stop();
    await t?.cleanup();
  });

  it('is badged "no-worker" (shown "no worker"), not "failing": it has 0 errors, nothing ran it', async () => {
    let badges: string[] = [];
    for (let i = 0; i < 60 && badges.length === 0; i++) {
      await sleep(250);
      badges = (await t.api('GET', '/api/schedules/orphan-job')).body.badges;
    }
    const view = (await t.api('GET', '/api/schedules/orphan-job')).body;
    expect(view.counts.errors).toBe(0);
    expect(view.badges).toEqual(['no-worker']);
    const page = await (
      await fetch(`${t.url}/`, { headers: { authorization: 'Bearer test-token-0123456789' } })
    ).text();
    expect(page).toMatch(/data-badge="no-worker"[^>]*>no worker</);
  }, 30_000);
});
