import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { CronTrigger } from '../../src/triggers/index.js';
import { REDIS_URL } from '../redis-url.js';
import { ARTIFACTS, launchBrowser } from './browser.js';
import { PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

/** `2026-03-07T00:00:00Z` as a datetime-local value. */
const local = (iso: string) => iso.slice(0, 19);

describe('dashboard in headless Chromium: backfill and except', () => {
  let t: TestDashboard;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    const prefix = `bbdash-bf-${Date.now().toString(36)}`;
    const queue = `${prefix}-q`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'client',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    await scheduler.schedule(
      { name: 'nightly-export' },
      new CronTrigger('30 2 * * *', { timezone: 'America/New_York' }),
      { id: 'nightly-export' },
    ).saved;
    await scheduler.pause('nightly-export');
    // one occurrence of the range already ran: the preview says so, and it is not enqueued again
    await internalsOf(scheduler).history.merge('nightly-export', Date.parse('2026-03-08T07:00:00Z'), false, {
      kind: 'scheduled',
      outcome: 'succeeded',
    });
    t = await startTestDashboard({ scheduler, prefix, queue });
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  const jobIds = async () => {
    const q = new Queue(t.queue, { connection: { url: REDIS_URL } });
    const jobs = await q.getJobs(['wait', 'active', 'completed', 'failed', 'delayed']);
    await q.close();
    return jobs.map((j) => j.id as string).sort();
  };

  it('previews a backfill (a dry run), then confirms it', async () => {
    await page.goto(`${t.url}/schedules/nightly-export`);
    await page.fill('#bf-from', local('2026-03-07T00:00:00Z'));
    await page.fill('#bf-to', local('2026-03-10T00:00:00Z'));
    await page.click('#backfill-preview-button');
    await page.waitForSelector('#backfill-list');
    expect(await page.locator('#backfill-status').textContent()).toBe(
      '3 occurrence(s) in the range: 2 to enqueue, 1 not to run.',
    );
    const rows = page.locator('#backfill-list tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual([
      '2026-03-07T07:30:00.000Z',
      'Sat, 07/03/2026, 02:30:00 America/New_York',
      'to enqueue',
    ]);
    expect(await rows.nth(1).locator('td').nth(2).textContent()).toBe('already ran');
    expect(await rows.nth(2).getAttribute('data-status')).toBe('to-enqueue');
    expect(await jobIds()).toEqual([]); // a preview enqueues nothing
    await shot('bf-01-preview');
    const confirm = page.locator('#backfill-confirm');
    expect(await confirm.isVisible()).toBe(true);
    expect(await confirm.textContent()).toBe('Confirm: enqueue 2');
    await confirm.click();
    await page.locator('#backfill-status', { hasText: 'Backfill started' }).waitFor();
    expect(await page.locator('#backfill-status').textContent()).toBe(
      'Backfill started: 2 occurrence(s) being enqueued (kind backfill); 1 not run.',
    );
    expect(await confirm.isVisible()).toBe(false);
    for (let i = 0; i < 40 && (await jobIds()).length < 2; i++) await sleep(100);
    expect(await jobIds()).toEqual(
      [Date.parse('2026-03-07T07:30:00Z'), Date.parse('2026-03-09T06:30:00Z')]
        .map((ms) => `bb-nightly-export-b${ms}`)
        .sort(),
    );
    await shot('bf-02-confirmed');
    // the history shows them as backfill runs
    await page.reload();
    expect(await page.locator('#runs tbody tr .sub', { hasText: 'backfill' }).count()).toBe(2);
  });

  it('a reversed range: the error names the field, and no confirm button', async () => {
    await page.goto(`${t.url}/schedules/nightly-export`);
    await page.fill('#bf-from', local('2026-03-10T00:00:00Z'));
    await page.fill('#bf-to', local('2026-03-07T00:00:00Z'));
    await page.click('#backfill-preview-button');
    await page.locator('#backfill-status.bad').waitFor();
    expect(await page.locator('#backfill-status').textContent()).toMatch(/^to: must be after from/);
    expect(await page.locator('#backfill-confirm').isVisible()).toBe(false);
  });

  it('the data field: JSON that does not parse is refused in the page; JSON that does runs every backfilled occurrence with it', async () => {
    await page.goto(`${t.url}/schedules/nightly-export`);
    await page.fill('#bf-from', local('2026-03-01T00:00:00Z'));
    await page.fill('#bf-to', local('2026-03-03T00:00:00Z'));
    const before = await jobIds();
    // not JSON: the page says so, naming the field, and sends nothing
    let posted = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/schedules/nightly-export/backfill')) posted++;
    });
    await page.fill('#bf-data', '{n: 7}');
    await page.click('#backfill-preview-button');
    await page.locator('#backfill-status.bad').waitFor();
    expect(await page.locator('#backfill-status').textContent()).toMatch(/^data: must be JSON \(/);
    expect(await page.locator('#bf-data').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#backfill-confirm').isVisible()).toBe(false);
    expect(posted).toBe(0);
    await shot('bf-04-data-refused');

    // JSON: previewed, then confirmed with it
    await page.fill('#bf-data', '{"n": 7, "full": true}');
    await page.click('#backfill-preview-button');
    await page.waitForSelector('#backfill-list');
    expect(await page.locator('#backfill-status').textContent()).toBe(
      '2 occurrence(s) in the range: 2 to enqueue, 0 not to run.',
    );
    expect(await page.locator('#bf-data').getAttribute('aria-invalid')).toBe('false');
    await page.locator('#backfill-confirm').click();
    await page.locator('#backfill-status', { hasText: 'Backfill started' }).waitFor();
    expect(await page.locator('#backfill-status').textContent()).toBe(
      'Backfill started: 2 occurrence(s) being enqueued (kind backfill, each with its data overridden); 0 not run.',
    );
    await shot('bf-05-data-confirmed');
    const fireAts = [Date.parse('2026-03-01T07:30:00Z'), Date.parse('2026-03-02T07:30:00Z')];
    const q = new Queue(t.queue, { connection: { url: REDIS_URL } });
    try {
      for (let i = 0; i < 40 && (await jobIds()).length < before.length + 2; i++) await sleep(100);
      for (const fireAt of fireAts) {
        const job = await q.getJob(`bb-nightly-export-b${fireAt}`);
        expect(job?.data.data, String(fireAt)).toEqual({ n: 7, full: true });
      }
    } finally {
      await q.close();
    }
    // each run's record says it was overridden, and by the dashboard user
    const runs = (await t.api('GET', '/api/schedules/nightly-export/runs')).body;
    const items = (runs.items ?? runs) as {
      fireAt: number;
      kind: string;
      overrides?: string;
      overriddenBy?: string;
    }[];
    for (const fireAt of fireAts) {
      expect(items.find((x) => x.fireAt === fireAt && x.kind === 'backfill')).toMatchObject({
        overrides: 'data',
        overriddenBy: `dashboard:${USER}`,
      });
    }
  });

  it('the new-schedule form takes exclusions, previews them, and creates the schedule with them', async () => {
    await page.goto(`${t.url}/new`);
    await page.fill('#f-name', 'weekday-noon');
    await page.fill('#f-expression', '0 12 * * *');
    await page.fill('#f-timezone', 'Europe/Paris');
    await page.fill('#f-except', '* * * * 0,6\n2099-12-25');
    await page.locator('#preview [data-description]', { hasText: 'except' }).waitFor();
    expect(await page.locator('#preview [data-description]').textContent()).toBe(
      'At 12:00 (Europe/Paris); except (Europe/Paris): minutes matching "* * * * 0,6" (every minute, on Sunday and Saturday); 2099-12-25',
    );
    const days = await page.locator('#preview li').allTextContents();
    expect(days).toHaveLength(5);
    for (const d of days) expect(d).not.toMatch(/Sat|Sun/);
    await page.fill('#f-except', '2026-02-30');
    await page.locator('#preview[data-state="invalid"]').waitFor();
    expect(await page.locator('#preview [data-error]').textContent()).toMatch(
      /line 1: "2026-02-30" is not a real date/,
    );
    await page.fill('#f-except', '* * * * 0,6');
    await page.locator('#preview[data-state="valid"]').waitFor();
    await page.click('#create-submit');
    await page.waitForURL(/\/schedules\/weekday-noon/);
    const view = (await t.api('GET', '/api/schedules/weekday-noon')).body;
    expect(view.definition.trigger).toEqual({
      type: 'except',
      trigger: { type: 'cron', expression: '0 12 * * *', timezone: 'Europe/Paris' },
      except: ['* * * * 0,6'],
    });
    await shot('bf-03-except');
  });
});
