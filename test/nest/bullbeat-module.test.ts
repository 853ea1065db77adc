import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { afterEach, describe, expect, it } from 'vitest';
import { type FiredEvent, SchedulerManager } from '../../src/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { testEnv } from '../scheduler/helpers.js';
import { waitUntil } from '../wait-until.js';
import { type Call, CallLog, Heartbeat, startNestApp } from './nest-app.js';

let env: ReturnType<typeof testEnv> | undefined;
const apps: INestApplicationContext[] = [];

afterEach(async () => {
  await Promise.allSettled(apps.splice(0).map((app) => app.close()));
  await env?.cleanup();
  env = undefined;
});

const callsOf = (app: INestApplicationContext): Call[] => app.get(CallLog).calls;

describe('BullbeatModule: a Nest application, two instances', () => {
  it('runs each occurrence of an @Every(0.2) provider method exactly once across two instances (and after one stops), through Nest DI', async () => {
    env = testEnv('nest-two');
    const options = { prefix: env.prefix, defaultQueue: env.queue };
    const a = await startNestApp('a', options);
    apps.push(a);
    const b = await startNestApp('b', options);
    apps.push(b);

    // Each instance has its own manager, in the scheduler role, firing into the same prefix.
    const managers = [a.get(SchedulerManager), b.get(SchedulerManager)];
    expect(managers[0]).not.toBe(managers[1]);
    expect(managers.map((m) => [internalsOf(m).prefix, internalsOf(m).options.role])).toEqual([
      [env.prefix, 'scheduler'],
      [env.prefix, 'scheduler'],
    ]);
    const fired = new Map<SchedulerManager, FiredEvent[]>(managers.map((m) => [m, []]));
    for (const m of managers) m.on('fired', (e) => fired.get(m)?.push(e));

    // Run with both (at least 5 occurrences, 5 a second), then stop instance a: b carries on alone (at
    // least 5 more), taking over what a had claimed.
    await waitUntil(() => callsOf(a).length + callsOf(b).length >= 5, 20_000);
    await a.close();
    const afterA = callsOf(a).length + callsOf(b).length;
    await waitUntil(() => callsOf(a).length + callsOf(b).length >= afterA + 5, 20_000);
    await b.close();
    apps.length = 0;

    const calls = [...callsOf(a), ...callsOf(b)];
    expect(new Set(calls.map((c) => c.scheduleId))).toEqual(new Set(['Heartbeat.beat']));
    // The method ran on its own instance's provider, whose CallLog Nest injected.
    expect(callsOf(a).every((c) => c.app === 'a')).toBe(true);
    expect(callsOf(b).every((c) => c.app === 'b')).toBe(true);
    expect(a.get(Heartbeat).log).toBe(a.get(CallLog));
    expect(b.get(Heartbeat).log).toBe(b.get(CallLog));

    // Each occurrence once: no fire time twice, and none lost between the first and the last: an
    // instant that did not run is recorded with its reason (a busy box coalesces or misses some).
    const fireAts = calls.map((c) => c.fireAt).sort((x, y) => x - y);
    expect(new Set(fireAts).size).toBe(fireAts.length);
    const first = fireAts[0] as number;
    const last = fireAts[fireAts.length - 1] as number;
    const ran = new Set(fireAts);
    const reader = env.manager({ role: 'client' });
    const records = new Map((await reader.history('Heartbeat.beat')).map((r) => [r.fireAt, r]));
    for (let t = first; t <= last; t += 200) {
      if (ran.has(t)) continue;
      expect(['skipped', 'missed'], `${t}: not run, and recorded as`).toContain(records.get(t)?.outcome);
    }
    expect(fireAts.every((t) => (t - first) % 200 === 0)).toBe(true);
    // Each was fired once, by one replica or the other; b alone after a stopped.
    const firedAts = [...fired.values()].flat().map((e) => e.fireAt);
    expect(new Set(firedAts).size).toBe(firedAts.length);
    expect(fired.get(managers[1] as SchedulerManager)?.length).toBeGreaterThan(0);
  });
});
