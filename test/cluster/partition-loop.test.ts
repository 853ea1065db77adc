// One replica's fire loop over every partition on a Redis Cluster (24 partitions): one claim cycle
// serves all of them (an `addBulk` carries occurrences of many partitions), and a partition whose
// master stops answering (CLIENT PAUSE on it) does not hold back the schedules of the others.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { keySlot } from '../../src/store/keys/partitions.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { type LocalCluster, startCluster } from '../setup/redis-cluster.js';
import { waitUntil } from '../wait-until.js';
import { clusterEnv, redisNow } from './helpers.js';

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The slot ranges a master serves (from its own `CLUSTER NODES` line). */
async function slotsOf(port: number): Promise<[number, number][]> {
  const text = await cluster.cli(port, 'cluster', 'nodes');
  const mine = text.split('\n').find((l) => l.includes('myself'))!;
  return mine
    .trim()
    .split(' ')
    .slice(8)
    .filter((r) => /^\d/.test(r))
    .map((r) => {
      const [lo, hi] = r.split('-').map(Number);
      return [lo!, hi ?? lo!];
    });
}

describe('one fire loop over every partition (Redis Cluster, 24 partitions)', () => {
  let env: ReturnType<typeof clusterEnv>;
  afterEach(async () => {
    await env?.cleanup();
  });

  /** A started manager firing `count` schedules every second (all on whole seconds), its fired events. */
  async function firing(tag: string, count: number) {
    env = clusterEnv(cluster, tag, 24);
    const m = env.manager({ backpressure: false });
    const enqueues: Set<number>[] = [];
    m.hooks = {
      afterEnqueue: (claims) => {
        enqueues.push(new Set(claims.map((c) => env.keys.partitionOf(c.id))));
      },
    };
    const fired: (FiredEvent & { seenAt: number })[] = [];
    m.on('fired', (e) => fired.push({ ...e, seenAt: Date.now() }));
    await m.start();
    const ids = Array.from({ length: count }, (_, i) => `s${i}`);
    await Promise.all(ids.map((id) => m.schedule({ name: 'tick' }, new IntervalTrigger(1), { id }).saved));
    return { m, ids, fired, enqueues };
  }

  it('one claim cycle serves every partition: one addBulk carries occurrences of many partitions', async () => {
    const { ids, fired, enqueues } = await firing('ploop-one', 48);
    const partitions = new Set(ids.map((id) => env.keys.partitionOf(id)));
    expect(partitions.size).toBeGreaterThan(12);
    const start = await redisNow(env.redis);
    await waitUntil(() => fired.filter((e) => e.fireAt > start + 2000).length >= ids.length, 20_000);
    // the one loop claims every partition in the same cycle: its enqueues mix partitions (one loop
    // per partition never does: each enqueue carries its own partition's occurrences only)
    expect(Math.max(...enqueues.map((s) => s.size))).toBeGreaterThanOrEqual(4);
    const seen = new Set<string>();
    for (const e of fired) {
      const k = `${e.scheduleId}@${e.fireAt}`;
      expect(seen.has(k), `${k} fired twice`).toBe(false);
      seen.add(k);
    }
    // every schedule fired at every whole second after it was saved
    for (const id of ids) {
      for (let t = Math.ceil((start + 500) / 1000) * 1000; t <= start + 2000; t += 1000) {
        expect(seen.has(`${id}@${t}`), `${id}@${t}`).toBe(true);
      }
    }
  }, 60_000);

  it("a partition whose master stops answering does not hold back the other partitions' schedules", async () => {
    const { m, ids, fired } = await firing('ploop-slow', 48);
    const start = await redisNow(env.redis);
    await waitUntil(() => fired.filter((e) => e.fireAt > start).length >= ids.length, 20_000);

    // pause (CLIENT PAUSE WRITE: scripts wait) a master holding partitions but neither the queue's
    // BullMQ keys nor the deployment-wide keys
    const { masters } = await cluster.roles();
    const busySlots = [keySlot(`{bull:${env.queue}}`), keySlot(env.keys.partitionCount)];
    let paused: number | undefined;
    let pausedSlots: [number, number][] = [];
    for (const port of masters) {
      const ranges = await slotsOf(port);
      const holds = (slot: number) => ranges.some(([lo, hi]) => slot >= lo && slot <= hi);
      if (!busySlots.some(holds)) {
        paused = port;
        pausedSlots = ranges;
        break;
      }
    }
    expect(paused).toBeDefined();
    const onPaused = (id: string) => {
      const slot = keySlot(env.keys.of(id).due);
      return pausedSlots.some(([lo, hi]) => slot >= lo && slot <= hi);
    };
    const stuck = ids.filter(onPaused);
    const others = ids.filter((id) => !onPaused(id));
    expect(stuck.length).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);

    const t0 = await redisNow(env.redis);
    await cluster.cli(paused!, 'client', 'pause', '4000', 'WRITE');
    await sleep(3200);
    const window = (e: FiredEvent) => e.fireAt >= t0 + 500 && e.fireAt <= t0 + 2500;
    const during = fired.filter(window);
    // the paused master's partitions fired nothing meanwhile (the pause holds their claims) ...
    expect(during.filter((e) => stuck.includes(e.scheduleId))).toEqual([]);
    // ... while every other schedule fired each of its occurrences of the window
    for (const id of others) {
      expect(during.filter((e) => e.scheduleId === id).length, id).toBeGreaterThanOrEqual(2);
    }

    // once it answers again, its schedules fire again; nothing fired twice
    await waitUntil(
      () => stuck.every((id) => fired.some((e) => e.scheduleId === id && e.fireAt > t0 + 4500)),
      20_000,
    );
    const seen = new Set<string>();
    for (const e of fired) {
      const k = `${e.scheduleId}@${e.fireAt}`;
      expect(seen.has(k), `${k} fired twice`).toBe(false);
      seen.add(k);
    }
    expect(internalsOf(m).loopStats!.errors).toBe(0);
  }, 90_000);
});
