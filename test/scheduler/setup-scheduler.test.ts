import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { setupScheduler } from '../../src/scheduler/manager/setup-scheduler.js';
import { waitUntil } from '../wait-until.js';
import { testEnv } from './helpers.js';

describe('setupScheduler(app)', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('is idempotent, stores the manager in app.locals, starts on listen and stops on close', async () => {
    env = testEnv('express');
    const app = express();
    const manager = env.manager();
    manager.every(3600)(async function hourly() {});
    expect(setupScheduler(app, manager)).toBe(manager);
    expect(setupScheduler(app)).toBe(manager);
    expect(app.locals.scheduler).toBe(manager);
    expect(manager.running).toBe(false);

    const server = app.listen(0);
    await waitUntil(() => manager.running);
    expect((await manager.get('hourly'))?.status).toBe('active');
    const port = (server.address() as AddressInfo).port;
    expect(port).toBeGreaterThan(0);
    await new Promise((r) => server.close(r));
    await waitUntil(() => !manager.running);
  });
});
