import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { launchBrowser } from './browser.js';
import { PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

// Screenshots of these checks go to a temporary directory (BULLBEAT_SHOTS), not to the repository.
const SHOTS = process.env.BULLBEAT_SHOTS;

describe('dashboard polish in headless Chromium', () => {
  let t: TestDashboard;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    const id = randomUUID().slice(0, 8);
    const prefix = `bbdash-polish-${id}`;
    const queue = `${prefix}-q`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'client',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    scheduler.cron('0 9 * * 1-5', { timezone: 'Europe/Berlin' })(async function weekdayReport() {});
    await scheduler.start();
    t = await startTestDashboard({ scheduler, prefix, queue });
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };

  it('a schedule name never breaks mid-word in the list, even in a narrow window', async () => {
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.goto(`${t.url}/`);
    await shot('list-narrow');
    const lines = await page
      .locator('#schedules a.name', { hasText: 'weekdayReport' })
      .evaluate((a) => a.getClientRects().length);
    expect(lines).toBe(1);
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('after a failed create, the error box sits below the "Create schedule" button, not over it', async () => {
    await page.goto(`${t.url}/new`);
    await page.fill('input[name=name]', 'dup');
    await page.fill('input[name=queue]', 'bad:queue');
    await page.click('#create-submit');
    const status = page.locator('#create-status');
    await expect.poll(() => status.textContent()).toContain('queue');
    await shot('create-failed');
    type Box = { x: number; y: number; width: number; height: number };
    const button = (await page.locator('#create-submit').boundingBox()) as Box;
    const box = (await status.boundingBox()) as Box;
    expect(box.y).toBeGreaterThanOrEqual(button.y + button.height);
  });

  it('Bull Board links back to the schedules pages', async () => {
    await page.goto(`${t.url}/admin/queues`);
    // evaluated in the page (a string, as the tests' types know no DOM)
    const links = (await page.evaluate(`(() => {
      const config = JSON.parse(document.getElementById('__UI_CONFIG__')?.textContent ?? '{}');
      return (config.miscLinks ?? []).map((l) => ({ text: l.text, href: new URL(l.url, document.baseURI).href }));
    })()`)) as { text: string; href: string }[];
    expect(links).toContainEqual({ text: 'Schedules', href: `${t.url}/` });
  });
});
