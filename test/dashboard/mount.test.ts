import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, type Dashboard } from '../../dashboard/index.js';
import { SchedulerManager } from '../../src/scheduler/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/index.js';
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
