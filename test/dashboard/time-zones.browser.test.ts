import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessOps, startProcessOps } from '../../src/ops/process-ops.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { launchBrowser } from './browser.js';
import { BEARER, PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

// Screenshots go to a temporary directory (BULLBEAT_SHOTS), not to the repository.
const SHOTS = process.env.BULLBEAT_SHOTS;
/** The browser's own zone: neither UTC nor the cron schedule's. */
const VIEWER_ZONE = 'America/New_York';
const CRON_ZONE = 'Europe/Berlin';

/** Every time the page shows in its main part: its instant, its zone attribute, its text. */
type Shown = { ms: number; zone: string; text: string };

/** `HH:MM:SS` of an instant in a zone. */
const hms = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(ms);

describe('one time-zone switch for the whole dashboard (headless Chromium)', () => {
  let t: TestDashboard;
  let worker: WorkerHandle;
  let ops: ProcessOps;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  let jitterQueue: string;

  beforeAll(async () => {
    const id = randomUUID().slice(0, 8);
    const prefix = `bbdash-tz-${id}`;
    const queue = `${prefix}-q`;
    jitterQueue = `${queue}-jit`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'client',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    scheduler.cron('0 9 * * 1-5', { timezone: CRON_ZONE })(async function weekdayReport() {});
    scheduler.schedule(async function spread() {}, new IntervalTrigger(3600, { jitter: 30 }), {
      name: 'spread',
      queue: jitterQueue,
    });
    scheduler.schedule(async function held() {}, new IntervalTrigger(600), { name: 'held' });
    await scheduler.start();
    t = await startTestDashboard({ scheduler, prefix, queue });
    worker = await createWorker(scheduler, { logger: quietLogger() });
    await worker.ready();
    // a worker in the fleet registry, with the job names it handles on each queue
    ops = await startProcessOps({ scheduler, replica: false, worker, heartbeatMs: 1000, version: 'test' });
    for (let i = 0; i < 2; i++) {
      const { fireAt } = await scheduler.triggerNow('weekdayReport');
      for (let j = 0; j < 400; j++) {
        const rec = (await scheduler.history('weekdayReport', 10)).find((r) => r.fireAt === fireAt);
        if (rec?.outcome === 'succeeded') break;
        await sleep(50);
      }
    }
    await scheduler.pause('held', { note: 'until the vendor fix', by: 'test' });
    browser = await launchBrowser({ username: USER, password: PASSWORD }, VIEWER_ZONE);
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ops?.stop();
    await worker?.close({ graceMs: 1000 });
    await t?.cleanup();
  });

  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };
  const shown = (p: Page = page) =>
    p.evaluate(`[...document.querySelectorAll('main time')].map((n) => ({
      ms: Number(n.getAttribute('data-ms')), zone: n.getAttribute('data-zone'), text: n.textContent }))`) as Promise<
      Shown[]
    >;
  /** The pages that show times, and how many times each shows at least. */
  const PAGES: [string, number][] = [
    ['/', 10], // next fire times of two schedules, the pause note's time
    ['/schedules/weekdayReport', 9], // runs, next fire times, last fire, created, audit
    ['/schedules/held', 2], // the pause note, created (and the audit entry)
    ['/schedules/spread', 5],
    ['/agenda', 3],
    ['/fleet', 1],
  ];

  it("shows every time in UTC, labelled, by default; after the switch every one is in the viewer's zone", async () => {
    const before = new Map<string, Shown[]>();
    for (const [path, least] of PAGES) {
      await page.goto(`${t.url}${path}`);
      const times = await shown();
      expect(times.length, path).toBeGreaterThanOrEqual(least);
      for (const s of times) {
        expect(s.zone, `${path}: ${s.text}`).toBe('UTC');
        expect(s.text, path).toMatch(/ UTC$/);
        expect(s.text, path).toContain(hms(s.ms, 'UTC'));
      }
      before.set(path, times);
    }
    // the switch, on the list: the client script offers the viewer's zone and sends the form on change
    await page.goto(`${t.url}/`);
    expect(await page.locator('[data-zone-apply]').isHidden()).toBe(true);
    await page.selectOption('[data-zone-select]', `local:${VIEWER_ZONE}`);
    await page.waitForSelector(`main time[data-zone="${VIEWER_ZONE}"]`);
    // remembered across pages: every time of every page changed and carries the new label
    for (const [path] of PAGES) {
      await page.goto(`${t.url}${path}`);
      await shot(`tz-local${path.replaceAll('/', '-')}`);
      const times = await shown();
      // (the agenda's window starts now: its instants may have moved on)
      if (path !== '/agenda') expect(times.length, path).toBe(before.get(path)?.length);
      expect(times.length, path).toBeGreaterThan(0);
      const old = new Map((before.get(path) ?? []).map((s) => [s.ms, s.text]));
      for (const s of times) {
        // the same instant as before, in words that changed
        if (old.has(s.ms)) expect(s.text, path).not.toBe(old.get(s.ms));
        expect(s.zone, `${path}: ${s.text}`).toBe(VIEWER_ZONE);
        expect(s.text, path).toContain(VIEWER_ZONE);
        expect(s.text, path).not.toContain('UTC');
        expect(s.text, path).toContain(hms(s.ms, VIEWER_ZONE));
        expect(hms(s.ms, VIEWER_ZONE)).not.toBe(hms(s.ms, 'UTC'));
      }
      expect(await page.locator('[data-zone-select]').inputValue()).toBe(`local:${VIEWER_ZONE}`);
    }
    // the runs chart follows the switch: its axis caption names the zone, its tooltip too
    await page.goto(`${t.url}/schedules/weekdayReport`);
    await page.waitForSelector('#runs-chart svg circle');
    expect(await page.locator('#runs-chart [data-axis-caption=x]').textContent()).toBe(
      `Fire time (${VIEWER_ZONE})`,
    );
    const point = page.locator('#runs-chart svg circle').first();
    await point.dispatchEvent('mouseenter');
    expect(await page.locator('#runs-chart [data-tooltip]').textContent()).toContain(VIEWER_ZONE);
  });

  it("in each schedule's zone: the cron schedule's times in its own zone, the others in UTC", async () => {
    await page.goto(`${t.url}/schedules/weekdayReport`);
    await page.selectOption('[data-zone-select]', 'schedule');
    await page.waitForSelector(`main time[data-zone="${CRON_ZONE}"]`);
    await page.waitForSelector('#runs-chart svg circle');
    await shot('tz-schedule-weekdayReport');
    const times = await shown();
    expect(times.every((s) => s.zone === CRON_ZONE && s.text.includes(CRON_ZONE))).toBe(true);
    // its fire times are at 09:00 in its zone
    const next = await page.locator('[data-fire-times] time').allTextContents();
    expect(next).toHaveLength(5);
    for (const text of next) expect(text).toMatch(/ 09:00:00 Europe\/Berlin$/);
    expect(await page.locator('#runs-chart [data-axis-caption=x]').textContent()).toBe(
      `Fire time (${CRON_ZONE})`,
    );
    await page.goto(`${t.url}/`);
    const list = await shown();
    const zones = new Set(list.map((s) => s.zone));
    expect(zones).toEqual(new Set([CRON_ZONE, 'UTC']));
    for (const s of list) expect(s.text).toContain(s.zone);
  });

  it("a jittered schedule's next fire times are the same on every reload and state the window", async () => {
    await page.goto(`${t.url}/time-zone?tz=utc&back=/schedules/spread`);
    const read = async () => {
      await page.goto(`${t.url}/schedules/spread`);
      return page.locator('[data-fire-times] time').allTextContents();
    };
    const first = await read();
    await shot('jitter-schedule');
    const second = await read();
    await page.reload();
    const third = await page.locator('[data-fire-times] time').allTextContents();
    expect(first).toHaveLength(5);
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    for (const text of first) {
      // the hour's window, 30 s long
      expect(text).toMatch(/^\w{3} \d{4}-\d\d-\d\d (\d\d):00:00–\1:00:30 UTC$/);
    }
    expect(await page.locator('[data-fire-times] [data-jitter-note]').textContent()).toBe(
      'each at a random time in its window (jitter 30 s)',
    );
    // the list row says the same
    await page.goto(`${t.url}/?q=spread`);
    expect(
      await page.locator('#schedules tr[data-id=spread] [data-fire-times] time').allTextContents(),
    ).toEqual(first);
    // the agenda lists the same windows, the same at every reading
    const agenda = async () => {
      await page.goto(`${t.url}/agenda?next=6h&queue=${encodeURIComponent(jitterQueue)}`);
      return page.locator('#agenda tbody time').allTextContents();
    };
    const listed = await agenda();
    await shot('jitter-agenda');
    expect(listed.length).toBeGreaterThanOrEqual(5);
    expect(await agenda()).toEqual(listed);
    // (the first window may have begun before the agenda's now: it is left out then)
    expect(listed).toEqual(expect.arrayContaining(first.slice(1)));
    // and the API gives the window's starts and its length
    const api = (await t.api('GET', '/api/schedules/spread')).body as {
      nextFireTimes: number[];
      jitterMs: number;
    };
    expect(api.jitterMs).toBe(30_000);
    expect(api.nextFireTimes.every((ms) => ms % 3_600_000 === 0)).toBe(true);
  });

  it('each queue of the fleet page lists only the job names its live workers handle there', async () => {
    await page.goto(`${t.url}/fleet`);
    await shot('fleet');
    const row = (q: string) => page.locator(`#served tr[data-queue="${q}"] td`).nth(1).textContent();
    expect(await row(t.queue)).toBe('held, weekdayReport');
    expect(await row(jitterQueue)).toBe('spread');
    const cell = page.locator('#fleet tr[data-role=worker] [data-handles]');
    expect(await cell.locator(`[data-queue="${jitterQueue}"]`).textContent()).toBe(`${jitterQueue}: spread`);
  });

  it('the switch keeps the choice in a cookie of the dashboard and sends back only to its own pages', async () => {
    const set = (query: string) =>
      fetch(`${t.url}/time-zone?${query}`, { headers: BEARER, redirect: 'manual' });
    const ok = await set('tz=local%3AAsia%2FTokyo&back=%2Fagenda%3Fnext%3D2h');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/agenda?next=2h');
    expect(ok.headers.get('set-cookie')).toMatch(/^bb_tz=local%3AAsia%2FTokyo; Max-Age=\d+; Path=\/;/);
    // an unknown zone is UTC; a path off the dashboard goes home
    const odd = await set('tz=local%3AMars%2FOlympus&back=%2F%2Fevil.example%2F');
    expect(odd.headers.get('location')).toBe('/');
    expect(odd.headers.get('set-cookie')).toMatch(/^bb_tz=utc;/);
  });

  it('works without JavaScript: the switch is a form with a Set button, UTC until set', async () => {
    const plain = await launchBrowser({ username: USER, password: PASSWORD }, VIEWER_ZONE, {
      javaScriptEnabled: false,
    });
    try {
      const p = await plain.context.newPage();
      await p.goto(`${t.url}/schedules/weekdayReport`);
      expect((await shown(p)).every((s) => s.zone === 'UTC' && s.text.endsWith('UTC'))).toBe(true);
      // no script, no viewer's zone: UTC and each schedule's zone
      expect(
        await p
          .locator('[data-zone-select] option')
          .evaluateAll((o) => o.map((n) => (n as unknown as { value: string }).value)),
      ).toEqual(['utc', 'schedule']);
      await p.selectOption('[data-zone-select]', 'schedule');
      await p.click('[data-zone-apply]');
      await p.waitForSelector(`main time[data-zone="${CRON_ZONE}"]`);
      const times = await shown(p);
      expect(times.length).toBeGreaterThan(0);
      expect(times.every((s) => s.zone === CRON_ZONE && s.text.includes(CRON_ZONE))).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
