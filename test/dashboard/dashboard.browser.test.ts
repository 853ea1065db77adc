import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinFleet } from '../../src/ops/fleet-registry.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { ARTIFACTS, launchBrowser } from './browser.js';
import { PASSWORD, quietLogger, startTestDashboard, type TestDashboard, USER } from './harness.js';

const XSS = '<img src=x onerror=alert(1)>';

/** Reload until `check` passes (a run lands asynchronously, through a real worker); bounded by tries. */
async function reloadUntil(page: Page, check: () => Promise<boolean>, tries = 60): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(250);
    await page.reload();
  }
  throw new Error('condition not met after reloading');
}

describe('dashboard in headless Chromium', () => {
  let t: TestDashboard;
  let worker: WorkerHandle;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let page: Page;
  const dialogs: string[] = [];
  /** Requests the pages made to anywhere but the dashboard (there should be none). */
  const external: string[] = [];

  beforeAll(async () => {
    const prefix = `bbdash-e2e-${Date.now().toString(36)}`;
    const queue = `${prefix}-q`;
    const scheduler = new SchedulerManager({
      prefix,
      role: 'client',
      defaultQueue: queue,
      logger: quietLogger(),
    });
    scheduler.schedule(
      async function nightlyBackup() {
        await sleep(40);
        return 'backed up';
      },
      new IntervalTrigger(3600),
      { name: 'nightly-backup' },
    );
    scheduler.cron('0 3 * * *', { name: 'sync-invoices', timezone: 'Europe/Berlin' })(async () => {
      throw new Error('upstream said 503: invoices service unavailable');
    });
    await scheduler.start();
    for (let i = 0; i < 30; i++) {
      await scheduler.schedule({ name: `filler-${String(i).padStart(2, '0')}` }, new IntervalTrigger(60 + i))
        .saved;
    }
    await scheduler.schedule({ name: XSS }, new IntervalTrigger(600)).saved;
    t = await startTestDashboard({ scheduler, prefix, queue, pageSize: 20 });
    worker = await createWorker(scheduler, { queues: [queue], logger: quietLogger() });
    await worker.ready();
    browser = await launchBrowser({ username: USER, password: PASSWORD });
    page = await browser.context.newPage();
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) external.push(r.url());
    });
    page.on('dialog', async (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      await d.accept();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close({ graceMs: 1000 });
    await t?.cleanup();
  });

  const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
  const row = (name: string) =>
    page.locator('#schedules tbody tr', { has: page.locator('a.name', { hasText: name }) });

  it('lists schedules, paginated', async () => {
    await page.goto(`${t.url}/`);
    await expect(page.title()).resolves.toBe('Schedules · bullbeat');
    expect(await page.locator('#schedules tbody tr').count()).toBe(20);
    expect(await page.locator('[data-range]').textContent()).toBe('1–20 of 33');
    const filler = row('filler-00');
    expect(await filler.locator('td').nth(1).textContent()).toBe('Every 1 minute');
    const times = await filler.locator('td.times time').allTextContents();
    expect(times).toHaveLength(5);
    // each in the zone chosen (UTC by default), labelled with it
    for (const time of times) expect(time).toMatch(/^[A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await shot('01-schedules');
    await page.click('a[rel=next]');
    await page.waitForURL(/offset=20/);
    expect(await page.locator('[data-range]').textContent()).toBe('21–33 of 33');
    const backup = row('nightly-backup');
    expect(await backup.locator('td').nth(1).textContent()).toBe('Every 1 hour');
    expect(await backup.locator('.sub').textContent()).toContain('code');
    await shot('01b-schedules-page-2');
  });

  it('finds a schedule by search and pauses it', async () => {
    await page.goto(`${t.url}/`);
    await page.fill('input[name=q]', 'backup');
    await page.press('input[name=q]', 'Enter');
    await page.waitForURL(/q=backup/);
    expect(await page.locator('#schedules tbody tr').count()).toBe(1);
    await row('nightly-backup').locator('button[data-action=pause]').click();
    await page.waitForURL(/done=pause/);
    expect(await page.locator('.flash').textContent()).toBe('Paused "nightly-backup".');
    expect(await row('nightly-backup').locator('[data-status]').textContent()).toBe('paused');
    expect(await row('nightly-backup').locator('td.times').textContent()).toBe('—');
    await shot('02-paused');
    await row('nightly-backup').locator('button[data-action=resume]').click();
    await page.waitForURL(/done=resume/);
    expect(await row('nightly-backup').locator('[data-status]').textContent()).toBe('active');
  });

  it('triggers a run and sees it succeed', async () => {
    await page.goto(`${t.url}/?q=nightly-backup`);
    await row('nightly-backup').locator('button[data-action=trigger]').click();
    await page.waitForURL(/done=trigger/);
    await page.goto(`${t.url}/schedules/nightly-backup`);
    await reloadUntil(
      page,
      async () => (await page.locator('#runs tr[data-outcome=succeeded]').count()) === 1,
    );
    const run = page.locator('#runs tr[data-outcome=succeeded]');
    expect(await run.locator('td').first().textContent()).toContain('manual');
    expect(await run.locator('td').nth(4).textContent()).toBe('1');
    await page.waitForSelector('#runs-chart svg circle[data-outcome=succeeded]');
    await shot('03-schedule-succeeded');
  });

  it('opens a failed run and reads its error, then its job in Bull Board', async () => {
    await page.goto(`${t.url}/schedules/sync-invoices`);
    expect(await page.locator('dl.def').textContent()).toContain('At 03:00 (Europe/Berlin)');
    await page.locator('button[data-action=trigger]').click();
    await page.waitForURL(/done=trigger/);
    await reloadUntil(page, async () => (await page.locator('#runs tr[data-outcome=failed]').count()) === 1);
    const failed = page.locator('#runs tr[data-outcome=failed]');
    expect(await failed.locator('td.error').textContent()).toBe(
      'upstream said 503: invoices service unavailable',
    );
    await page.waitForSelector('#runs-chart svg circle[data-outcome=failed]');
    await shot('04-schedule-failed');

    const href = await failed.locator('a[data-job-link]').getAttribute('href');
    expect(href).toMatch(new RegExp(`^/admin/queues/queue/${t.queue}/bb-sync-invoices-m\\d+$`));
    await failed.locator('a[data-job-link]').click();
    await page.waitForURL(/\/admin\/queues\/queue\//);
    await page
      .getByText('upstream said 503: invoices service unavailable')
      .first()
      .waitFor({ timeout: 15_000 });
    await shot('05-bull-board-job');
  });

  it('lets Bull Board write from its own page (the browser proves the origin)', async () => {
    await page.goto(`${t.url}/admin/queues`);
    const put = (action: string) =>
      page.evaluate(
        async (url) => (await fetch(url, { method: 'PUT' })).status,
        `/admin/queues/api/queues/${t.queue}/${action}`,
      );
    expect(await put('pause')).toBe(200);
    expect(await internalsOf(t.scheduler).queue(t.queue).isPaused()).toBe(true);
    expect(await put('resume')).toBe(200);
    expect(await internalsOf(t.scheduler).queue(t.queue).isPaused()).toBe(false);
  });

  it('creates a schedule through the form, validated as you type', async () => {
    await page.goto(`${t.url}/new`);
    await page.fill('#f-name', 'weekly-digest');
    await page.fill('#f-expression', '0 61 * * *');
    await page.waitForSelector('#preview[data-state=invalid]');
    expect(await page.locator('#preview [data-error]').textContent()).toContain('out of range');
    await shot('06-form-invalid');
    await page.fill('#f-expression', '30 8 * * MON');
    await page.fill('#f-timezone', 'Europe/Berlin');
    await page
      .locator('#preview [data-description]', { hasText: 'Europe/Berlin' })
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('#preview [data-description]').textContent()).toBe(
      'At 08:30, on Monday (Europe/Berlin)',
    );
    expect(await page.locator('#preview li').count()).toBe(5);
    await shot('07-form-preview');
    await page.click('#create-submit');
    await page.waitForURL(/\/schedules\/weekly-digest\?created=1/);
    expect(await page.locator('h1 .name').textContent()).toBe('weekly-digest');
    expect(await page.locator('dl.def').textContent()).toContain('At 08:30, on Monday (Europe/Berlin)');
    await shot('08-created');
    const api = await t.api('GET', '/api/schedules/weekly-digest');
    expect(api.body.definition.trigger).toEqual({
      type: 'cron',
      expression: '30 8 * * MON',
      timezone: 'Europe/Berlin',
    });
  });

  it('the create form warns when no live worker serves the job name on the queue (fleet registry)', async () => {
    const member = await joinFleet({
      prefix: internalsOf(t.scheduler).prefix,
      connection: internalsOf(t.scheduler).connectionOptions(),
      role: 'worker',
      queues: worker.queues,
      handlers: internalsOf(t.scheduler).handlerNames(),
    });
    try {
      await page.goto(`${t.url}/new`);
      await page.fill('#f-name', 'nobody-handles-this');
      await page.locator('#served-warning:not([hidden])').waitFor({ timeout: 10_000 });
      expect(await page.locator('#served-warning').textContent()).toContain(
        'No live worker serves job "nobody-handles-this"',
      );
      await page.fill('#f-name', 'nightly-backup');
      await page.locator('#served-warning[hidden]').waitFor({ state: 'attached', timeout: 10_000 });
      await page.fill('#f-queue', 'some-other-queue');
      await page.locator('#served-warning:not([hidden])').waitFor({ timeout: 10_000 });
    } finally {
      await member.leave();
    }
  });

  it('renders a hostile schedule name as text', async () => {
    await page.goto(`${t.url}/?q=${encodeURIComponent('<img')}`);
    const link = page.locator('#schedules a.name');
    expect(await link.count()).toBe(1);
    expect(await link.textContent()).toBe(XSS);
    expect(await page.locator('img').count()).toBe(0);
    await link.click();
    expect(await page.locator('h1 .name').textContent()).toBe(XSS);
    expect(await page.locator('img').count()).toBe(0);
    await shot('09-xss-as-text');
    expect(dialogs.filter((d) => d.startsWith('alert'))).toEqual([]);
  });

  it('pauses with a note, shows it, and resumes with a catch-up policy', async () => {
    const ran: number[] = [];
    t.scheduler.handle('pausable', async () => {
      ran.push(Date.now());
    });
    await t.scheduler.schedule({ name: 'pausable' }, new IntervalTrigger(0.2)).saved;
    await page.goto(`${t.url}/schedules/pausable`);
    await page.fill('input[data-pause-note-input]', 'waiting for the vendor fix (INC-9)');
    await page.locator('button[data-action=pause]').click();
    await page.waitForURL(/done=pause/);
    expect(await page.locator('[data-status]').first().textContent()).toBe('paused');
    expect(await page.locator('[data-pause-note-panel]').textContent()).toMatch(
      /^Paused by dashboard:admin at .+ UTC: waiting for the vendor fix \(INC-9\)$/,
    );
    await page.goto(`${t.url}/?q=pausable`);
    expect(await row('pausable').locator('[data-pause-note]').textContent()).toContain(
      'waiting for the vendor fix (INC-9)',
    );
    await shot('08-paused-with-note');
    await sleep(700); // a few occurrences fall due while it is paused
    await page.goto(`${t.url}/schedules/pausable`);
    await page.selectOption('select[data-resume-policy]', 'once');
    await page.locator('button[data-action=resume]').click();
    await page.waitForURL(/done=resume/);
    expect(await page.locator('[data-status]').first().textContent()).toBe('active');
    expect(await page.locator('[data-pause-note-panel]').count()).toBe(0);
    // one catch-up run standing for the missed ones, run by the worker through its handle() handler
    await reloadUntil(
      page,
      async () => (await page.locator('#runs tr[data-outcome=succeeded]').count()) >= 1,
    );
    const run = page.locator('#runs tr[data-outcome=succeeded]').first();
    expect(await run.locator('td').first().textContent()).toContain('catch-up');
    expect(await run.locator('td').nth(1).textContent()).toMatch(/stands for \d+/);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    await shot('09-resumed-once');
    await t.scheduler.remove('pausable');
  });

  it('edits a runtime schedule from its page: the form is filled, the change is saved by update()', async () => {
    await t.scheduler.schedule({ name: 'editable' }, new IntervalTrigger(600), { attempts: 3 }).saved;
    await page.goto(`${t.url}/schedules/editable`);
    await page.locator('a[data-edit]').click();
    await page.waitForURL(/\/schedules\/editable\/edit$/);
    expect(await page.inputValue('#f-seconds')).toBe('600');
    expect(await page.locator('#f-id').isDisabled()).toBe(true);
    await page.fill('#f-seconds', '900');
    await page.click('#create-submit');
    await page.waitForURL(/updated=1/);
    expect(await page.locator('.flash').first().textContent()).toBe('Schedule updated.');
    const after = (await t.api('GET', '/api/schedules/editable')).body;
    expect(after.description).toBe('Every 15 minutes');
    expect(after.definition.attempts).toBe(3); // kept
    // a code schedule has no edit link, and its edit page says why
    await page.goto(`${t.url}/schedules/nightly-backup`);
    expect(await page.locator('a[data-edit]').count()).toBe(0);
    const refused = await page.goto(`${t.url}/schedules/nightly-backup/edit`);
    expect(refused?.status()).toBe(409);
    await t.scheduler.remove('editable');
  });

  it('removes a schedule after a confirmation', async () => {
    await page.goto(`${t.url}/?q=weekly-digest`);
    await row('weekly-digest').locator('button[data-action=remove]').click();
    await page.waitForURL(/done=remove/);
    expect(dialogs.at(-1)).toMatch(/^confirm: Remove schedule "weekly-digest"/);
    expect(await page.locator('.empty').textContent()).toBe('No schedule matches.');
    expect((await t.api('GET', '/api/schedules/weekly-digest')).status).toBe(404);
  });

  it('fetched nothing from outside the dashboard (Bull Board included)', () => {
    expect(external).toEqual([]);
  });
});
