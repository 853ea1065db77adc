// The calendars page in headless Chromium: each named calendar with its version, dates and rules, the
// schedules that use it and its next excluded days; the schedule page names its calendar and links to
// it; the JSON API and the OpenAPI document have the same. And the fleet page's "Code deploys" section
// shows what a deploy of changed code did to the code schedules, field by field.
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { CronTrigger } from '../../src/triggers/index.js';
import { REDIS_URL } from '../redis-url.js';
import { ARTIFACTS, launchBrowser } from './browser.js';
import { PASSWORD, startTestDashboard, type TestDashboard, USER } from './harness.js';

const DAY = 86_400_000;

/** `YYYY-MM-DD` of the first Monday to Friday at least `days` days after `from` (UTC). */
function weekdayAfter(from: number, days: number): string {
  let t = from + days * DAY;
  while ([0, 6].includes(new Date(t).getUTCDay())) t += DAY;
  return new Date(t).toISOString().slice(0, 10);
}

describe('calendars on the dashboard', () => {
  let t: TestDashboard;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    t = await startTestDashboard();
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  it('lists each calendar with its version, dates, rules, users and next days off; the schedule page links to it', async () => {
    const holiday = weekdayAfter(Date.now(), 3);
    await t.scheduler.calendars.define('mkt', { rules: ['weekends'] }, { by: 'ann' });
    await t.scheduler.calendars.define(
      'mkt',
      { rules: ['weekends'], dates: [`${holiday} Founders Day`] },
      { by: 'ann' },
    );
    await t.scheduler.calendars.define('unused', { rules: ['last-business-day'] });
    await t.scheduler.schedule({ name: 'open', queue: t.queue }, new CronTrigger('30 9 * * *'), {
      id: 'open',
      calendar: 'mkt',
      onExcluded: 'next',
    }).saved;
    await t.scheduler.schedule({ name: 'plain', queue: t.queue }, new CronTrigger('0 9 * * *'), {
      id: 'plain',
    }).saved;

    await page.goto(`${t.url}/calendars`);
    expect(await page.locator('nav a.current').textContent()).toBe('Calendars');
    const mkt = page.locator('section[data-calendar=mkt]');
    expect(await mkt.getAttribute('data-version')).toBe('2');
    expect(await mkt.locator('h2').textContent()).toContain('v2');
    expect(await mkt.locator('[data-rules]').textContent()).toBe('weekends');
    expect(await mkt.locator('[data-dates]').textContent()).toBe(`${holiday} Founders Day`);
    expect(await mkt.locator('[data-schedules] a').allTextContents()).toEqual(['open']);
    const excluded = await mkt.locator('[data-excluded] li').allTextContents();
    expect(excluded).toHaveLength(10);
    expect(excluded).toContain(`${holiday} Founders Day`);
    expect(excluded.some((d) => d.endsWith(' Saturday'))).toBe(true);
    const unused = page.locator('section[data-calendar=unused]');
    expect(await unused.locator('[data-schedules]').textContent()).toBe('none');
    expect(await unused.locator('[data-excluded] li').first().textContent()).toMatch(
      /is not the last business day of its month$/,
    );
    await page.screenshot({ path: `${ARTIFACTS}40-calendars.png`, fullPage: true });

    // the schedule page names its calendar; the link goes to its section
    await page.goto(`${t.url}/schedules/open`);
    const link = page.locator('a[data-calendar-link]');
    expect(await link.textContent()).toBe('mkt');
    expect(await link.locator('xpath=..').textContent()).toContain('(on a day off: next business day)');
    await page.screenshot({ path: `${ARTIFACTS}41-schedule-calendar.png`, fullPage: true });
    await link.click();
    await page.waitForURL(/\/calendars#mkt$/);
    expect(await page.locator('section[data-calendar=mkt]').isVisible()).toBe(true);
    await page.goto(`${t.url}/schedules/plain`);
    expect(await page.locator('a[data-calendar-link]').count()).toBe(0);

    // the schedule's next fire times are its runs with the calendar applied, not its wake-ups
    const view = (await t.api('GET', '/api/schedules/open')).body;
    expect(view.nextFireTimes).toHaveLength(5);
    for (const at of view.nextFireTimes as number[]) {
      const d = new Date(at);
      expect([0, 6]).not.toContain(d.getUTCDay());
      expect(d.toISOString().slice(0, 10)).not.toBe(holiday);
      expect(d.toISOString().slice(11, 16)).toBe('09:30');
    }
    const shown = await page.goto(`${t.url}/schedules/open`).then(() => page.content());
    expect(shown).toContain(new Date(view.nextFireTimes[0]).toISOString());

    // the JSON API and its OpenAPI document
    const list = await t.api('GET', '/api/calendars');
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(['mkt', 'unused']);
    const one = await t.api('GET', '/api/calendars/mkt');
    expect(one.body).toMatchObject({
      name: 'mkt',
      version: 2,
      by: 'ann',
      schedules: ['open'],
      spec: { rules: ['weekends'], dates: [{ date: holiday, name: 'Founders Day' }] },
    });
    expect(one.body.nextExcluded).toContainEqual({ date: holiday, why: `${holiday} Founders Day` });
    const missing = await t.api('GET', '/api/calendars/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toContain('no calendar "nope"');
    const doc = (await t.api('GET', '/api/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/calendars', '/calendars/{name}']));
    expect(doc.paths['/calendars/{name}'].get.responses['404']).toBeDefined();
  });

  it("the fleet page's Code deploys section shows what a deploy did to code schedules", async () => {
    const deploy = async (cron: string, extra: boolean, role: 'client' | 'scheduler') => {
      const m = new SchedulerManager({
        prefix: t.prefix,
        role,
        connection: REDIS_URL,
        logger: pino({ level: 'silent' }),
      });
      m.cron(cron, { id: 'report', queue: t.queue })(async function report() {});
      if (extra) m.every(3600, { id: 'extra', queue: t.queue })(async function extra() {});
      await m.start();
      await m.stop();
    };
    // two deploys within the section's one-minute gap: shown as one row, newest change first
    await deploy('0 9 * * *', true, 'client');
    await deploy('0 10 * * *', false, 'scheduler');

    await page.goto(`${t.url}/fleet`);
    const deploys = page.locator('#deploys');
    const rows = deploys.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    const latest = rows.first();
    expect(await latest.locator('li[data-schedule=report][data-op=update]').textContent()).toContain(
      'changed',
    );
    expect(await latest.locator('li[data-field=trigger]').textContent()).toContain('0 10 * * *');
    expect(await latest.locator('li[data-schedule=extra][data-op=orphan]').count()).toBe(1);
    // as plan shows it: the next fire times after the deploy under the trigger before and after
    const at = async (sel: string) =>
      (
        await latest.locator(`${sel} time`).evaluateAll((ts) => ts.map((x) => x.getAttribute('datetime')))
      ).map((iso) => new Date(iso as string));
    const before = await at('li[data-next-before]');
    const after = await at('li[data-next-after]');
    expect(before).toHaveLength(3);
    expect(after).toHaveLength(3);
    expect(before.map((d) => d.getUTCHours())).toEqual([9, 9, 9]);
    expect(after.map((d) => d.getUTCHours())).toEqual([10, 10, 10]);
    await deploys.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}42-code-deploys.png`, fullPage: true });
  }, 60_000);
});
