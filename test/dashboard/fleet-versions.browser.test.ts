// The fleet page and /api/fleet in headless Chromium with two live fleet members of different
// bullbeat versions (real fleet writes): the page shows the mixed-versions warning naming both, the
// API carries `versions` and `mixedVersions`; with one version left, no warning.

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinFleet } from '../../src/ops/index.js';
import { REDIS } from '../redis-url.js';
import { launchBrowser } from './browser.js';
import { PASSWORD, startTestDashboard, type TestDashboard, USER } from './harness.js';

// A screenshot of the warning goes to a temporary directory (BULLBEAT_SHOTS), not to the repository.
const SHOTS = process.env.BULLBEAT_SHOTS;

describe('the fleet page warns of mixed versions (headless Chromium)', () => {
  let t: TestDashboard;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    t = await startTestDashboard();
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  it('two live replicas of different versions: the warning names both; one version: none', async () => {
    const old = await joinFleet({ prefix: t.prefix, connection: REDIS, role: 'scheduler', version: '1.4.2' });
    const next = await joinFleet({
      prefix: t.prefix,
      connection: REDIS,
      role: 'scheduler',
      version: '1.5.0',
    });
    try {
      const api = await t.api('GET', '/api/fleet');
      expect(api.status).toBe(200);
      expect(api.body).toMatchObject({ versions: { '1.4.2': 1, '1.5.0': 1 }, mixedVersions: true });

      await page.goto(`${t.url}/fleet`);
      const warning = page.locator('#fleet-versions[data-badge="mixed-versions"]');
      expect(await warning.isVisible()).toBe(true);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/fleet-versions.png`, fullPage: true });
      expect(await warning.getAttribute('data-versions')).toBe('1.4.2 1.5.0');
      const text = ((await warning.textContent()) ?? '').replace(/\s+/g, ' ');
      expect(text).toContain(
        'Live processes run different bullbeat versions: 1.4.2 (1 process), 1.5.0 (1 process)',
      );
      // the two rows themselves show their versions
      const versions = await page.locator('#fleet tbody tr td:nth-child(5)').allInnerTexts();
      expect(versions.sort()).toEqual(['1.4.2', '1.5.0']);

      await old.leave();
      await page.goto(`${t.url}/fleet`);
      expect(await page.locator('#fleet-versions').count()).toBe(0);
      expect(await page.locator('#fleet tbody tr').count()).toBe(1);
      expect((await t.api('GET', '/api/fleet')).body).toMatchObject({
        versions: { '1.5.0': 1 },
        mixedVersions: false,
      });
    } finally {
      await old.leave();
      await next.leave();
    }
  }, 60_000);
});
