import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { waitUntil } from '../wait-until.js';
import { everyMs, testEnv } from './helpers.js';

describe('smoke', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('fires a custom trigger onto the queue', async () => {
    env = testEnv('smoke');
    const m = env.manager();
    m.schedule(async function tick() {}, everyMs(100));
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    await m.start();
    await waitUntil(() => fired.length >= 5);
    await m.stop();
    const ids = await env.jobIds();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(5);
  });
});
