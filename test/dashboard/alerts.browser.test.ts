// The alerts page in headless Chromium, and /api/alerts: a scheduler replica with an operator's
// notifier opens incidents for a schedule whose runs do not start (no worker); the page lists them
// with their why, a link to the occurrence's why page and their deliveries. API callers read alerts
// but can add no notifier.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withManagerEnv } from '../../src/scheduler/contract/manager-env.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { startReceiver } from '../scheduler/alerts/receiver.js';
import { waitUntil } from '../wait-until.js';
import { ARTIFACTS, launchBrowser } from './browser.js';
import { PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

/** The page's screenshot: under test-artifacts/, or `SCREENSHOT_DIR` when set. */
const SHOT = join(process.env.SCREENSHOT_DIR ?? ARTIFACTS, 'alerts-page.png');

describe('the alerts page', () => {
  let t: TestDashboard;
  let replica: SchedulerManager;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestDashboard();
    replica = withManagerEnv(
      { ...process.env, BULLBEAT_NOTIFIERS: `ops=webhook:${receiver.url}/hook` },
      () => new SchedulerManager({ prefix: t.prefix, defaultQueue: t.queue, logger: quietLogger() }),
    );
    replica.every(1, {
      id: 'nightly-export',
      labels: { tenant: 'acme' },
      expect: { startedWithin: '1s', notify: ['ops'] },
    })(async function nightlyExport() {});
    replica.every(1, {
      id: 'other-tenant',
      labels: { tenant: 'globex' },
      expect: { startedWithin: '1s', failuresInARow: 2, notify: ['ops'] },
    })(async function otherTenant() {});
    await replica.start();
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await replica?.stop();
    await t?.cleanup();
    await receiver?.close();
  });

  it('lists the open incidents with their why, occurrence link and deliveries', async () => {
    await waitUntil(async () => {
      const { body } = await t.api('GET', '/api/alerts?open=1');
      return body.incidents.some(
        (i: { cause: string; deliveries: { status: string }[] }) =>
          i.cause === 'late' && i.deliveries.some((d) => d.status === 'sent'),
      );
    }, 20_000);
    const { status, body } = await t.api('GET', '/api/alerts');
    expect(status).toBe(200);
    const late = body.incidents.find(
      (i: { cause: string; scheduleId: string }) => i.cause === 'late' && i.scheduleId === 'nightly-export',
    );
    expect(late).toMatchObject({ scheduleId: 'nightly-export', status: 'open', notify: ['ops'] });
    expect(body.notifiers).toEqual({ ops: 'webhook' });

    const metrics = await t.api('GET', '/metrics');
    expect(metrics.body).toMatch(/bullbeat_incidents_open\{cause="late"\} [12]/);
    expect(metrics.body).toMatch(/bullbeat_alert_deliveries_total\{notifier="ops",outcome="sent"\} [1-9]/);

    await page.goto(`${t.url}/alerts`);
    const row = page.locator('#incidents tr[data-cause=late][data-incident=' + late.id + ']');
    expect(await row.count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('open');
    expect(await row.locator('td.why').textContent()).toMatch(/not started .* after its fire time/);
    expect(await row.locator('[data-delivery]').first().getAttribute('data-status')).toBe('sent');
    expect(await page.locator('#alerts-summary').getAttribute('data-open')).not.toBe('0');
    expect(await page.locator('nav a.current').textContent()).toBe('Alerts');
    await page.screenshot({ path: SHOT, fullPage: true });

    await row.locator('td').nth(4).locator('a').click();
    await page.waitForURL(/\/schedules\/nightly-export\/why\?at=\d+/);
    expect(await page.locator('h1').first().textContent()).toMatch(/nightly-export|Why/i);
  });

  it('the schedule page shows its expectations and its open incidents; alerts filtered by a label selector', async () => {
    await waitUntil(async () => {
      const { body } = await t.api('GET', '/api/alerts?open=1');
      const late = body.incidents.filter((i: { cause: string }) => i.cause === 'late');
      return late.length === 2;
    }, 20_000);
    const acme = await t.api('GET', '/api/alerts?selector=tenant%3Dacme');
    expect(acme.status).toBe(200);
    expect(new Set(acme.body.incidents.map((i: { scheduleId: string }) => i.scheduleId))).toEqual(
      new Set(['nightly-export']),
    );
    const notAcme = await t.api('GET', '/api/alerts?open=1&selector=tenant!%3Dacme');
    expect(new Set(notAcme.body.incidents.map((i: { scheduleId: string }) => i.scheduleId))).toEqual(
      new Set(['other-tenant']),
    );
    const bad = await t.api('GET', '/api/alerts?selector=tenant%3D%3D%3D');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/selector/);

    // the page shows the schedule's open incidents as the API has them: its late one, and on a box slow
    // enough, a no-worker one too (no worker consumes its queue), which may open while the page loads:
    // the page has at least what the API had before it loaded and at most what it has after
    const openCauses = async () => {
      const { body } = await t.api('GET', '/api/alerts?open=1&schedule=other-tenant');
      return body.incidents.map((i: { cause: string }) => i.cause).sort() as string[];
    };
    const before = await openCauses();
    expect(before).toContain('late');
    await page.goto(`${t.url}/schedules/other-tenant`);
    const after = await openCauses();
    expect(await page.locator('[data-expects]').textContent()).toMatch(
      /started within 1s, fewer than 2 failures in a row; notify ops/,
    );
    const open = page.locator('[data-open-incidents]');
    const shown = (
      await open
        .locator('li[data-cause]')
        .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-cause') ?? ''))
    ).sort();
    expect(await open.getAttribute('data-open-incidents')).toBe(String(shown.length));
    expect(shown).toEqual(expect.arrayContaining(before));
    expect(after).toEqual(expect.arrayContaining(shown));
    const item = open.locator('li[data-cause=late]');
    expect(await item.textContent()).toMatch(
      /late, occurrence .*, opened .*: not started .* after its fire time/,
    );
    await page.screenshot({
      path: join(process.env.SCREENSHOT_DIR ?? ARTIFACTS, 'schedule-expectations.png'),
      fullPage: true,
    });
    await item.locator('a[data-incident-why]').click();
    await page.waitForURL(/\/schedules\/other-tenant\/why\?at=\d+/);
    await page.goBack();
    await open.locator('a', { hasText: 'alerts' }).click();
    await page.waitForURL(/\/alerts\?schedule=other-tenant/);
    const rows = page.locator('#incidents tr[data-incident]');
    expect(await rows.count()).toBeGreaterThanOrEqual(1);
    for (const text of await rows.locator('td').nth(3).allTextContents())
      expect(text).toMatch(/other-tenant/);
  });

  it('an API caller can add no notifier: no route for one, unknown names and fields refused', async () => {
    expect(
      (await t.api('POST', '/api/notifiers', { name: 'evil', url: 'https://evil.example' })).status,
    ).toBe(404);
    const unknownName = await t.api('POST', '/api/schedules', {
      name: 'sneaky',
      trigger: { type: 'interval', seconds: 60 },
      expect: { startedWithin: '1m', notify: ['evil'] },
    });
    expect(unknownName.status).toBe(400);
    expect(JSON.stringify(unknownName.body)).toMatch(
      /expect\.notify\[0\]: no notifier named \\"evil\\" is configured/,
    );
    const field = await t.api('POST', '/api/schedules', {
      name: 'sneaky',
      trigger: { type: 'interval', seconds: 60 },
      notifiers: { evil: 'webhook:https://evil.example' },
    });
    expect(field.status).toBe(400);
    expect(JSON.stringify(field.body)).toMatch(/notifiers/);
    const known = await t.api('POST', '/api/schedules', {
      name: 'watched',
      trigger: { type: 'interval', seconds: 60 },
      expect: { startedWithin: '1m', succeededBy: '09:30', notify: ['ops'] },
    });
    expect(known.status).toBe(201);
    expect(known.body.definition.expect).toEqual({
      startedWithinMs: 60_000,
      succeededBy: { at: '09:30' },
      notify: ['ops'],
    });
  });
});
