import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { launchBrowser } from './browser.js';
import { PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

// Screenshots of these checks go to a temporary directory (BULLBEAT_SHOTS), not to the repository.
const SHOTS = process.env.BULLBEAT_SHOTS;
/** The viewer's zone: neither UTC nor the schedule's. */
const VIEWER_ZONE = 'America/New_York';

type Rect = { x: number; y: number; width: number; height: number; text: string };

/** `HH:MM` of an instant in a zone. */
const hhmm = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    ms,
  );

describe('dashboard charts and fire times in headless Chromium', () => {
  let t: TestDashboard;
  let worker: WorkerHandle;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;

  beforeAll(async () => {
    const id = randomUUID().slice(0, 8);
    const prefix = `bbdash-charts-${id}`;
    const queue = `${prefix}-q`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'client',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    scheduler.cron('0 9 * * 1-5', { timezone: 'Europe/Berlin' })(async function weekdayReport() {});
    let n = 0;
    scheduler.schedule(
      async function pulse() {
        n += 1;
        await sleep(20 + ((n * 37) % 160));
        if (n % 4 === 0) throw new Error('every fourth pulse fails');
      },
      new IntervalTrigger(3600),
      { name: 'pulse' },
    );
    await scheduler.start();
    t = await startTestDashboard({ scheduler, prefix, queue });
    worker = await createWorker(scheduler, { queues: [queue], logger: quietLogger() });
    await worker.ready();
    // one run at a time (a run started while another is going would be skipped as overlap, and the
    // fourth, failing, call might never come)
    for (let i = 0; i < 6; i++) {
      const { fireAt } = await scheduler.triggerNow('pulse');
      // up to 20 s each: on a loaded CI box a run that had not finished let the next one be skipped
      // as overlap, and the failing fourth call never came
      for (let j = 0; j < 400; j++) {
        const rec = (await scheduler.history('pulse', 100)).find((r) => r.fireAt === fireAt);
        if (rec?.outcome === 'succeeded' || rec?.outcome === 'failed') break;
        await sleep(50);
      }
    }
    // every run finished (succeeded or failed) before the pages are looked at
    for (let i = 0; i < 200; i++) {
      const runs = await scheduler.history('pulse', 100);
      if (runs.length === 6 && runs.every((r) => r.outcome === 'succeeded' || r.outcome === 'failed')) break;
      await sleep(100);
    }
    browser = await launchBrowser({ username: USER, password: PASSWORD }, VIEWER_ZONE);
    page = await browser.context.newPage();
    // the times in the viewer's own zone (the header's switch; UTC until chosen)
    await page.goto(`${t.url}/time-zone?tz=local:${encodeURIComponent(VIEWER_ZONE)}&back=/`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.close({ graceMs: 1000 });
    await t?.cleanup();
  });

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };
  /** Every text label of the runs chart with its box on the page. */
  const chartLabels = () =>
    page.evaluate(`[...document.querySelectorAll('#runs-chart svg text')].map((n) => {
      const r = n.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, text: n.textContent };
    })`) as Promise<Rect[]>;

  it("the runs chart has a time axis in the viewer's zone", async () => {
    await page.goto(`${t.url}/schedules/pulse`);
    await page.waitForSelector('#runs-chart svg circle');
    await shot('schedule-chart');
    const ticks = (await page.locator('#runs-chart svg [data-axis=x] text').allTextContents()).filter((s) =>
      /\d\d:\d\d/.test(s),
    );
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(await page.locator('#runs-chart [data-axis-caption=x]').textContent()).toContain(VIEWER_ZONE);
  });

  it('each chart panel names its unit', async () => {
    await page.goto(`${t.url}/schedules/pulse`);
    await page.waitForSelector('#runs-chart svg circle');
    const titles = await page.locator('#runs-chart svg text[data-panel-title]').allTextContents();
    expect(titles).toHaveLength(2);
    expect(titles[0]).toMatch(/^Lateness \((ms|s|min)\)$/);
    expect(titles[1]).toMatch(/^Duration \((ms|s|min)\)$/);
  });

  it('no two chart labels overlap (the panel titles clear the top tick)', async () => {
    await page.goto(`${t.url}/schedules/pulse`);
    await page.waitForSelector('#runs-chart svg circle');
    const labels = await chartLabels();
    const overlaps: string[] = [];
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i] as Rect;
        const b = labels[j] as Rect;
        const apart =
          a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        if (!apart) overlaps.push(`"${a.text}" × "${b.text}"`);
      }
    }
    expect(overlaps).toEqual([]);
  });

  it('hovering a point shows its time, outcome and value', async () => {
    await page.goto(`${t.url}/schedules/pulse`);
    const point = page.locator('#runs-chart svg circle[data-outcome=failed]').first();
    // the pointer entering this point: runs seconds apart with about the same lateness draw their
    // points on top of each other, and a real pointer would enter whichever one is on top
    await point.dispatchEvent('mouseenter');
    const tip = page.locator('#runs-chart [data-tooltip]');
    await expect.poll(() => tip.isVisible()).toBe(true);
    await shot('schedule-chart-hover');
    const text = (await tip.textContent()) ?? '';
    expect(text).toContain('failed');
    expect(text).toMatch(/\d\d:\d\d:\d\d/);
    expect(text).toMatch(/(lateness|duration) −?\d+(\.\d+)? (ms|s|min)/i);
    await point.dispatchEvent('mouseleave');
    await expect.poll(() => tip.isVisible()).toBe(false);
  });

  it('the list shows fire times in the zone chosen, each labelled with it', async () => {
    await page.goto(`${t.url}/?q=weekdayReport`);
    await shot('list-times');
    const next = ((await t.api('GET', '/api/schedules/weekdayReport')).body as { nextFireTimes: number[] })
      .nextFireTimes;
    expect(next).toHaveLength(5);
    const cell = page.locator('#schedules tr[data-id=weekdayReport] td.times');
    const text = (await cell.textContent()) ?? '';
    const lines = await cell.locator('time').allTextContents();
    expect(lines).toHaveLength(5);
    for (const [i, at] of next.entries()) {
      expect(lines[i]).toContain(hhmm(at, VIEWER_ZONE));
      expect(lines[i]?.endsWith(` ${VIEWER_ZONE}`)).toBe(true);
    }
    expect(text).not.toContain('UTC');
    expect(await page.locator('#schedules thead').textContent()).not.toContain('(UTC)');
  });

  it("the schedule page's fire times each keep to one line", async () => {
    for (const width of [1400, 1000]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/schedules/weekdayReport`);
      await shot(`schedule-times-${width}`);
      const dd = page
        .locator('dl.def dt', { hasText: 'Next fire times' })
        .locator('xpath=following-sibling::dd[1]');
      const text = (await dd.textContent()) ?? '';
      expect(text).toContain(VIEWER_ZONE);
      // every text node of the list lies on one line (a wrapped one has boxes at two heights)
      const { wrapped, overflow } = (await page.evaluate(`(() => {
        const dt = [...document.querySelectorAll('dl.def dt')].find((n) => n.textContent === 'Next fire times');
        const dd = dt.nextElementSibling;
        const wrapped = [];
        const walk = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          if (!n.textContent.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(n);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) wrapped.push(n.textContent);
        }
        return { wrapped, overflow: dd.scrollWidth - dd.clientWidth };
      })()`)) as { wrapped: string[]; overflow: number };
      expect(wrapped, `at ${width}px`).toEqual([]);
      expect(overflow, `at ${width}px`).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });
});
