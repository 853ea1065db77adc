// The schedule page's "Changes" section in headless Chromium: a pause with its note made on the page
// (by the dashboard user), an update from the API (by the token's name) with its fields before and
// after, the create: who changed what, and when.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { ARTIFACTS, launchBrowser } from './browser.js';
import { PASSWORD, startTestDashboard, type TestDashboard, USER } from './harness.js';

describe('the schedule page shows its audit trail', () => {
  let t: TestDashboard;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    t = await startTestDashboard({ tokenName: 'deploy-bot' });
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  it('lists the create, an API update with its fields and a pause with its note made on the page', async () => {
    await t.scheduler.schedule(
      { name: 'invoices' },
      new IntervalTrigger(3600),
      {},
      { by: 'ann', via: 'runtime' },
    ).saved;
    const patched = await t.api('PATCH', '/api/schedules/invoices', {
      trigger: { type: 'interval', seconds: 900 },
    });
    expect(patched.status).toBe(200);
    await page.goto(`${t.url}/schedules/invoices`);
    await page.fill('input[data-pause-note-input]', 'month-end close');
    await page.locator('button[data-action=pause]').click();
    await page.waitForURL(/done=pause/);

    const rows = page.locator('#audit tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-op')))).toEqual([
      'pause',
      'update',
      'create',
    ]);
    const pause = rows.nth(0);
    expect(await pause.locator('[data-actor]').textContent()).toBe(`dashboard:${USER}`);
    expect(await pause.locator('[data-source]').textContent()).toBe('dashboard');
    expect(await pause.locator('td').nth(4).textContent()).toBe('"month-end close"');
    const update = rows.nth(1);
    expect(await update.locator('[data-actor]').textContent()).toBe('api:deploy-bot');
    expect(await update.locator('[data-source]').textContent()).toBe('api');
    expect(await update.locator('li[data-field=trigger]').textContent()).toBe(
      'trigger: {"type":"interval","seconds":3600} → {"type":"interval","seconds":900}',
    );
    expect(await rows.nth(2).locator('[data-actor]').textContent()).toBe('ann');
    expect(await rows.nth(0).locator('td').first().textContent()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
    );
    const api = page.locator('a[data-audit-api]');
    expect(await api.getAttribute('href')).toMatch(/\/api\/schedules\/invoices\/history$/);
    await page.locator('#audit').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}20-audit-trail.png`, fullPage: true });
  });
});
