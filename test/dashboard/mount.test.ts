import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, type Dashboard } from '../../dashboard/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
import { launchBrowser } from './browser.js';
import { BEARER, deleteKeys, quietLogger, TOKEN } from './harness.js';

describe('createDashboard mounted in an app of your own', () => {
  const prefix = `bbdash-mount-${randomUUID().slice(0, 8)}`;
  const queue = `${prefix}-q`;
  let scheduler: SchedulerManager;
  let dashboard: Dashboard;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    scheduler = new SchedulerManager({ prefix, role: 'client', defaultQueue: queue, logger: quietLogger() });
    await scheduler.schedule({ name: 'mounted-job' }, new IntervalTrigger(60)).saved;
    dashboard = createDashboard({ scheduler, basePath: '/ops', token: TOKEN, env: {} });
    const app = express();
    app.get('/', (_req, res) => {
      res.send('the host app');
    });
    app.use('/ops', dashboard);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await dashboard.close();
    await scheduler.close();
    await deleteKeys([`{${prefix}}*`, `bull:${queue}*`]);
  });

  it('serves its routes, links and Bull Board under the mount path', async () => {
    expect(await (await fetch(`${url}/`)).text()).toBe('the host app');
    const list = await fetch(`${url}/ops/api/schedules`, { headers: BEARER });
    expect(
      ((await list.json()) as { items: { id: string }[] }).items.map((s: { id: string }) => s.id),
    ).toEqual(['mounted-job']);
    const page = await (await fetch(`${url}/ops/`, { headers: BEARER })).text();
    expect(page).toContain('href="/ops/schedules/mounted-job"');
    expect(page).toContain('src="/ops/assets/app.js"');
    expect(page).toContain('data-base="/ops"');
    const board = await fetch(`${url}/ops/admin/queues`, { headers: BEARER });
    expect(await board.text()).toContain('<base href="/ops/admin/queues/" />');
    const queues = (await (
      await fetch(`${url}/ops/admin/queues/api/queues`, { headers: BEARER })
    ).json()) as {
      queues: { name: string }[];
    };
    expect(queues.queues.map((q: { name: string }) => q.name)).toEqual([queue]);
    expect((await fetch(`${url}/ops/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/ops/api/schedules`)).status).toBe(401);
  });
});

describe('createDashboard mounted with app.use(path, dashboard) and no basePath', () => {
  const prefix = `bbdash-mount2-${randomUUID().slice(0, 8)}`;
  const queue = `${prefix}-q`;
  let scheduler: SchedulerManager;
  let dashboard: Dashboard;
  let proxied: Dashboard;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    scheduler = new SchedulerManager({ prefix, role: 'client', defaultQueue: queue, logger: quietLogger() });
    await scheduler.schedule({ name: 'mounted-job' }, new IntervalTrigger(60)).saved;
    // token only: browsers sign in through the login form
    dashboard = createDashboard({ scheduler, token: TOKEN, env: {} });
    // behind a proxy that strips /edge before the app sees it: basePath overrides req.baseUrl
    proxied = createDashboard({ scheduler, token: TOKEN, basePath: '/edge', env: {} });
    const app = express();
    app.get('/', (_req, res) => {
      res.send('the host app');
    });
    app.use('/ops', dashboard);
    app.use('/teams/blue/ops', dashboard);
    app.use('/stripped', proxied);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await dashboard.close();
    await proxied.close();
    await scheduler.close();
    await deleteKeys([`{${prefix}}*`, `bull:${queue}*`]);
  });

  it('derives every link from the mount path (req.baseUrl), for each path it is mounted at', async () => {
    for (const base of ['/ops', '/teams/blue/ops']) {
      const page = await (await fetch(`${url}${base}/`, { headers: BEARER })).text();
      expect(page).toContain(`href="${base}/schedules/mounted-job"`);
      expect(page).toContain(`src="${base}/assets/app.js"`);
      expect(page).toContain(`href="${base}/assets/style.css"`);
      expect(page).toContain(`data-base="${base}"`);
      expect(page).toContain(`href="${base}/admin/queues"`);
      expect(page).toContain(`action="${base}/schedules/mounted-job/pause"`);
      const detail = await (await fetch(`${url}${base}/schedules/mounted-job`, { headers: BEARER })).text();
      expect(detail).toContain(`href="${base}/"`);
      const board = await (await fetch(`${url}${base}/admin/queues`, { headers: BEARER })).text();
      expect(board).toContain(`<base href="${base}/admin/queues/" />`);
      const queues = (await (
        await fetch(`${url}${base}/admin/queues/api/queues`, { headers: BEARER })
      ).json()) as {
        queues: { name: string }[];
      };
      expect(queues.queues.map((q) => q.name)).toEqual([queue]);
    }
  });

  it('sends a browser to the login form under the mount path, and scopes its cookies to it', async () => {
    const home = await fetch(`${url}/ops/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/ops/login?next=%2Fops%2F');
    const form = await (await fetch(`${url}/ops/login?next=%2Fops%2F`)).text();
    expect(form).toContain('action="/ops/login"');
    expect(form).toContain('href="/ops/assets/style.css"');
    const wrong = await fetch(`${url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=nope&next=%2Fops%2F',
      redirect: 'manual',
    });
    expect(wrong.headers.get('location')).toBe('/ops/login?failed=1&next=%2Fops%2F');
    const signIn = await fetch(`${url}/ops/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${TOKEN}&next=%2Fops%2Fschedules%2Fmounted-job`,
      redirect: 'manual',
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/ops/schedules/mounted-job');
    const session = signIn.headers.get('set-cookie') ?? '';
    expect(session).toMatch(/^bb_session=[^;]+; Path=\/ops;/);
    const page = await fetch(`${url}/ops/`, { headers: { cookie: session.split(';')[0] as string } });
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie') ?? '').toMatch(/^bb_csrf=[^;]+; Path=\/ops;/);
  });

  it('takes basePath, when given, over the mount path (a proxy in front strips a prefix)', async () => {
    const page = await (await fetch(`${url}/stripped/`, { headers: BEARER })).text();
    expect(page).toContain('href="/edge/schedules/mounted-job"');
    expect(page).toContain('data-base="/edge"');
    const board = await (await fetch(`${url}/stripped/admin/queues`, { headers: BEARER })).text();
    expect(board).toContain('<base href="/edge/admin/queues/" />');
    const home = await fetch(`${url}/stripped/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(home.headers.get('location')).toBe('/edge/login?next=%2Fedge%2F');
  });

  it('works in Chromium under /ops: sign in, follow links, act, open Bull Board and come back', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${url}/ops/`);
      await page.waitForURL(`${url}/ops/login?next=%2Fops%2F`);
      await page.fill('#token', TOKEN);
      await page.click('button[type=submit]');
      await page.waitForURL(`${url}/ops/`);
      await shot(page, 'mounted-list');
      await page.click('#schedules a.name');
      await page.waitForURL(`${url}/ops/schedules/mounted-job`);
      await page.click('button[data-action=pause]');
      await page.waitForURL(/\/ops\/schedules\/mounted-job\?done=pause/);
      expect(await page.locator('.flash').textContent()).toBe('Paused "mounted-job".');
      await page.click('text=← all schedules');
      await page.waitForURL(`${url}/ops/`);
      await page.click('header a[href$="/admin/queues"]');
      await page.waitForURL(`${url}/ops/admin/queues`);
      await page.getByText(queue).first().waitFor({ timeout: 15_000 });
      await shot(page, 'mounted-board');
      const back = (await page.evaluate(`(() => {
        const config = JSON.parse(document.getElementById('__UI_CONFIG__')?.textContent ?? '{}');
        return (config.miscLinks ?? []).map((l) => new URL(l.url, document.baseURI).href);
      })()`)) as string[];
      expect(back).toEqual([`${url}/ops/`]);
      await page.goto(`${url}/ops/new`);
      await page.fill('#f-name', 'made-under-ops');
      await page.fill('#f-expression', '30 8 * * MON');
      await page.click('#create-submit');
      await page.waitForURL(`${url}/ops/schedules/made-under-ops?created=1`);
      expect(await page.locator('h1 .name').textContent()).toBe('made-under-ops');
    } finally {
      await browser.close();
    }
  });
});

async function shot(page: Page, name: string): Promise<void> {
  if (process.env.BULLBEAT_SHOTS) {
    await page.screenshot({ path: `${process.env.BULLBEAT_SHOTS}/${name}.png`, fullPage: true });
  }
}
