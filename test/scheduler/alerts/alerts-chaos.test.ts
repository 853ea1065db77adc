// Incidents opened and resolved while 3 scheduler replicas are SIGKILLed one every 1-2 s for 20 s:
// each incident opens once and resolves once, and each of its events reaches each notifier (by
// delivery id: at least once, so a duplicate is counted, never a loss).
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorker, type WorkerHandle } from '../../../src/queue/create-worker.js';
import type { RunContext } from '../../../src/queue/pipeline.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { childFixture } from '../../setup/child-fixtures.js';
import { waitUntil } from '../../wait-until.js';
import { REDIS_URL, silent, testEnv } from '../helpers.js';
import { type ReplicaProcess, spawnReplicaProcess } from '../replica-process.js';
import { startReceiver } from './receiver.js';

const REPLICA = childFixture('test/scheduler/fixtures/alert-replica.ts');
const SCHEDULES = 4;
const CHAOS_MS = 20_000;

describe('alerts under replica chaos', () => {
  const children: ChildProcess[] = [];
  let env: ReturnType<typeof testEnv>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: WorkerHandle | undefined;
  afterEach(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await worker?.close({ graceMs: 1000 });
    await env.cleanup();
    await receiver.close();
  });

  it('each incident opened once, resolved once, delivered to each notifier by delivery id', async () => {
    env = testEnv('alerts-chaos');
    receiver = await startReceiver();
    const vars = {
      REDIS_URL,
      PREFIX: env.prefix,
      QUEUE: env.queue,
      SCHEDULES: String(SCHEDULES),
      LOG_LEVEL: process.env.DEBUG_ALERTS ? 'debug' : 'error',
      BULLBEAT_NOTIFIERS: `a=webhook:${receiver.url}/a;secret=x b=slack:${receiver.url}/b`,
    };
    const all: ReplicaProcess[] = [];
    // each replica's life (ms since the epoch), for DEBUG_ALERTS's timeline
    const life = new Map<ReplicaProcess, { spawned: number; ready?: number; killed?: number }>();
    const spawn = () => {
      const r = spawnReplicaProcess(REPLICA, vars, children);
      all.push(r);
      life.set(r, { spawned: Date.now() });
      return r;
    };
    let replicas: ReplicaProcess[] = [spawn(), spawn(), spawn()];
    await waitUntil(() => replicas.every((r) => r.ready()), 60_000, { stepMs: 50 });

    // the worker, here: each schedule fails while its flag is up; the flags flip every ~1.5 s
    const failing = new Set<string>();
    const m = env.manager({ role: 'client' });
    m.handle('flaky', async (ctx: RunContext) => {
      if (failing.has(ctx.scheduleId)) throw new Error(`${ctx.scheduleId} is down`);
    });
    worker = await createWorker(m, { concurrency: 10, logger: silent });

    const start = Date.now();
    let kills = 0;
    let flip = 0;
    let nextKill = start + 1000 + Math.random() * 1000;
    while (Date.now() - start < CHAOS_MS) {
      if (Date.now() >= nextKill) {
        const victim = replicas[Math.floor(Math.random() * replicas.length)]!;
        victim.child.kill('SIGKILL');
        life.get(victim)!.killed = Date.now();
        await victim.exited;
        kills++;
        replicas = [...replicas.filter((r) => r !== victim), spawn()];
        nextKill = Date.now() + 1000 + Math.random() * 1000;
      }
      if (Date.now() - start >= flip * 1500) {
        const id = `f${flip % SCHEDULES}`;
        if (failing.has(id)) failing.delete(id);
        else failing.add(id);
        flip++;
      }
      for (const r of replicas) {
        const l = life.get(r)!;
        if (l.ready === undefined && r.ready()) l.ready = Date.now();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    failing.clear();
    const alerts = new AlertStore(env.redis, env.prefix);
    await waitUntil(
      async () => {
        const r = await alerts.report({ limit: 1000 });
        return (
          r.incidents.length > 0 &&
          r.incidents.every((i) => i.status === 'resolved') &&
          r.outbox === 0 &&
          r.incidents.every(
            (i) => i.deliveries.length === 4 && i.deliveries.every((d) => d.status === 'sent'),
          )
        );
      },
      90_000,
      { stepMs: 250 },
    );

    const { incidents } = await alerts.report({ limit: 1000 });
    const expected = new Set(
      incidents.flatMap((i) => ['a', 'b'].flatMap((n) => [`${i.id}|${n}|opened`, `${i.id}|${n}|resolved`])),
    );
    const received = receiver.got.map((r) => r.headers['x-bullbeat-delivery'] as string);
    const unique = new Set(received);
    expect([...unique].sort()).toEqual([...expected].sort()); // none lost, none made up
    // one incident of a cause at a time per schedule: they never overlap
    const slots = new Map<string, typeof incidents>();
    for (const i of incidents) {
      const key = `${i.cause}|${i.scheduleId}`;
      slots.set(key, [...(slots.get(key) ?? []), i]);
    }
    for (const mine of slots.values()) {
      mine.sort((x, y) => x.openedAt - y.openedAt);
      for (let i = 1; i < mine.length; i++) {
        expect(mine[i]!.openedAt).toBeGreaterThanOrEqual(mine[i - 1]!.resolvedAt!);
      }
    }
    // in order per incident and notifier: opened before resolved
    const order = new Map(received.map((id, i) => [id, i] as const).reverse());
    for (const i of incidents) {
      for (const n of ['a', 'b']) {
        expect(order.get(`${i.id}|${n}|opened`)!).toBeLessThan(order.get(`${i.id}|${n}|resolved`)!);
      }
    }
    if (process.env.DEBUG_ALERTS) {
      for (let s = 0; s < SCHEDULES; s++) {
        const h = await m.history.list(`f${s}`);
        console.log(
          `f${s}`,
          h
            .reverse()
            .map((r) => `${((r.fireAt - start) / 1000).toFixed(0)}${r.outcome[0]}`)
            .join(' '),
        );
      }
      // per replica: spawned, ready, killed, and the checks it made (s since the chaos began)
      const at = (t: number | undefined) => (t === undefined ? '-' : ((t - start) / 1000).toFixed(1));
      const checkTimes = all
        .flatMap((r) => r.out.split('\n').filter((line) => line.includes('expectations: checked')))
        .map((line) => (JSON.parse(line) as { time: number }).time)
        .sort((a, b) => a - b);
      let gap = { ms: 0, from: start };
      for (const [i, t] of checkTimes.entries()) {
        const before = i === 0 ? start : checkTimes[i - 1]!;
        if (t - before > gap.ms) gap = { ms: t - before, from: before };
      }
      console.log(
        `${checkTimes.length} checks; the longest stretch without one: ${(gap.ms / 1000).toFixed(1)} s from ${at(gap.from)}`,
      );
      for (const r of all) {
        const l = life.get(r)!;
        const checks = r.out
          .split('\n')
          .filter((line) => line.includes('expectations: checked'))
          .map((line) => at((JSON.parse(line) as { time: number }).time));
        console.log(
          `replica ${r.child.pid}: spawned ${at(l.spawned)} ready ${at(l.ready)} killed ${at(l.killed)} checks ${checks.join(' ')}`,
        );
        for (const line of r.out.split('\n'))
          if (/expectations|alert/.test(line) && !line.includes('expectations: checked'))
            console.log(line.slice(0, 400));
      }
      for (const i of incidents)
        console.log(
          i.id,
          i.scheduleId,
          i.cause,
          (i.openedAt - start) / 1000,
          ((i.resolvedAt ?? 0) - start) / 1000,
        );
    }
    expect(kills).toBeGreaterThanOrEqual(9);
    expect(incidents.filter((i) => i.cause === 'failed').length).toBeGreaterThanOrEqual(4);
    console.log(
      `alerts chaos: ${kills} replicas killed, ${incidents.length} incidents (${incidents
        .map((i) => i.cause)
        .join(',')}), ${unique.size} delivery ids, ${received.length - unique.size} duplicate deliveries`,
    );
  }, 240_000);
});
