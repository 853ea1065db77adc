// The expectations watch at scale: with 5,000 schedules of which 10 expect something, one check reads
// those 10 (and the schedules with an incident open), never every schedule's state or definition. Counted
// on a private redis-server with MONITOR (nothing else talks to it), at 1,000 schedules and again at
// 5,000: the commands of a check are the same, none reads a whole hash of the deployment's schedules.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncidentWatch } from '../../../src/scheduler/alerts/incident-watch.js';
import { internalsOf } from '../../../src/scheduler/manager/manager-internals.js';
import { SchedulerManager } from '../../../src/scheduler/manager/scheduler-manager.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { ScheduleStore } from '../../../src/store/deployment/schedule-store.js';
import { startRedisServer } from '../../setup/redis-server.js';
import { waitUntil } from '../../wait-until.js';
import { silent } from '../helpers.js';

const WATCHED = 10;
const QUEUE = 'watch-reads';

interface Seen {
  source: string;
  args: string[];
}

describe('the expectations watch reads what can change an incident', () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  let redis: Redis;
  let manager: SchedulerManager;
  const prefix = `watch-reads-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url, { maxRetriesPerRequest: null });
    manager = new SchedulerManager({
      prefix,
      connection: server.url,
      role: 'client',
      logger: silent,
      auditLimit: 0,
    });
  }, 30_000);
  afterAll(async () => {
    await manager?.close();
    redis?.disconnect();
    await server?.stop();
  });

  /** The commands `fn` makes the server run (scripts' own commands included, as MONITOR shows them). */
  async function commandsOf(fn: () => Promise<unknown>): Promise<Seen[]> {
    const monitor = await redis.monitor();
    const seen: Seen[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => seen.push({ source, args }));
    await fn();
    // MONITOR shows commands in the order they ran: once the marker is seen, every command of fn was
    const marker = `end-${randomUUID()}`;
    await redis.echo(marker);
    await waitUntil(() => seen.some((s) => s.args[1] === marker), 5000, { what: 'the marker' });
    monitor.disconnect();
    return seen.filter((s) => s.args[0]?.toLowerCase() !== 'echo');
  }

  const summary = (seen: Seen[]) =>
    seen
      .map((s) => s.args[0]!.toLowerCase())
      .reduce<Record<string, number>>((acc, c) => {
        acc[c] = (acc[c] ?? 0) + 1;
        return acc;
      }, {});

  /** Every command that names the partition's `state` or `schedules` hash, and how many fields it reads. */
  const scheduleReads = (seen: Seen[]) =>
    seen
      .filter((s) => s.args.some((a) => a.endsWith(':bb:state') || a.endsWith(':bb:schedules')))
      .map((s) => ({ command: s.args[0]!.toLowerCase(), fields: s.args.length - 2 }));

  const add = (from: number, to: number) =>
    manager.scheduleMany(
      Array.from({ length: to - from }, (_, n) => {
        const i = from + n;
        return {
          target: { queue: QUEUE, name: 'job' },
          trigger: { type: 'interval' as const, seconds: 3600 },
          options: {
            id: i < WATCHED ? `watched-${i}` : `plain-${i}`,
            ...(i < WATCHED && { expect: { startedWithin: '1m' } }),
          },
        };
      }),
    );

  function watch(): IncidentWatch {
    const internals = internalsOf(manager);
    return new IncidentWatch({
      redis,
      keys: internals.keys,
      store: new ScheduleStore(redis, internals.keys, internals.options.historyLimit),
      alerts: new AlertStore(redis, prefix),
      defaults: undefined,
      notifiers: [],
      queue: (q) => internals.queue(q),
      logger: silent,
      replicaId: 'test',
    });
  }

  it('a check at 5,000 schedules runs the commands it runs at 1,000; none reads every schedule', async () => {
    const k = internalsOf(manager).keys;
    await add(0, 1000);
    expect(await redis.smembers(k.expectIndex)).toHaveLength(WATCHED);
    await watch().check(); // opens the queue's connection once (BullMQ's own commands), not counted
    const small = watch();
    const smallFirst = await commandsOf(() => small.check()); // with the refresh: the index, its definitions
    const smallNext = await commandsOf(() => small.check());

    await add(1000, 5000);
    expect(await redis.hlen(k.schedules)).toBe(5000);
    expect((await redis.smembers(k.expectIndex)).sort()).toEqual(
      Array.from({ length: WATCHED }, (_, i) => `watched-${i}`).sort(),
    );
    const big = watch();
    const bigFirst = await commandsOf(() => big.check());
    const bigNext = await commandsOf(() => big.check());

    expect(summary(bigFirst)).toEqual(summary(smallFirst));
    expect(summary(bigNext)).toEqual(summary(smallNext));
    // the schedules' hashes are read by field, 10 fields at most: never HGETALL, HSCAN, HKEYS or HVALS
    for (const seen of [bigFirst, bigNext]) {
      const reads = scheduleReads(seen);
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) {
        expect(r.command).toBe('hmget');
        expect(r.fields).toBeLessThanOrEqual(WATCHED);
      }
      expect(seen.filter((s) => /^(scan|keys|hscan|hkeys|hvals)$/i.test(s.args[0]!))).toEqual([]);
    }
    expect(bigNext.length).toBeLessThanOrEqual(3 * WATCHED + 10);
    console.log(
      `watch reads at 5,000 schedules (10 watched): a check with its refresh ${bigFirst.length} commands, ` +
        `a check ${bigNext.length} (${JSON.stringify(summary(bigNext))})`,
    );
  }, 120_000);

  it('an incident of a schedule no longer watched, or removed, still resolves', async () => {
    const alerts = new AlertStore(redis, prefix);
    const k = internalsOf(manager).keys;
    // one of a schedule with no expectation (as after its `expect` was dropped), one of a watched one
    await alerts.open({ scheduleId: 'plain-77', cause: 'late', occurrence: 1, why: 'test' }, []);
    await alerts.open({ scheduleId: 'watched-3', cause: 'late', occurrence: 1, why: 'test' }, []);
    await manager.remove('watched-3');
    expect(await redis.sismember(k.expectIndex, 'watched-3')).toBe(0);
    const seen = await commandsOf(() => watch().check());
    const resolved = (await alerts.incidents()).map((i) => [i.scheduleId, i.status, i.resolvedWhy]);
    expect(resolved.sort()).toEqual([
      ['plain-77', 'resolved', 'the schedule no longer expects what late checks'],
      ['watched-3', 'resolved', 'the schedule was removed'],
    ]);
    for (const r of scheduleReads(seen)) expect(r.fields).toBeLessThanOrEqual(WATCHED + 1);
  }, 60_000);

  it('the index follows updates, and a deployment written before it is indexed once', async () => {
    const k = internalsOf(manager).keys;
    const alerts = new AlertStore(redis, prefix);
    const ids = async () => (await alerts.watchedDefinitions(k, false)).map(([id]) => id).sort();
    const redefine = (expectation: { startedWithin: string } | undefined) =>
      manager.scheduleMany([
        {
          target: { queue: QUEUE, name: 'job' },
          trigger: { type: 'interval', seconds: 3600 },
          options: { id: 'plain-5', ...(expectation && { expect: expectation }) },
        },
      ]);
    const before = await ids();
    expect(before).toHaveLength(WATCHED - 1); // watched-3 was removed
    await redefine({ startedWithin: '5m' });
    expect(await ids()).toEqual([...before, 'plain-5'].sort());
    await redefine(undefined);
    expect(await ids()).toEqual(before);
    // a definition saved without the index (an earlier release's save) is indexed by its next save, unchanged
    await redefine({ startedWithin: '5m' });
    await redis.srem(k.expectIndex, 'plain-5');
    await redefine({ startedWithin: '5m' });
    expect(await redis.sismember(k.expectIndex, 'plain-5')).toBe(1);
    await redefine(undefined);
    // drop the index and its mark, as data written by a release without it has neither
    await redis.del(k.expectIndex, k.expectsIndexed);
    expect(await ids()).toEqual(before);
    expect(await redis.get(k.expectsIndexed)).toBe('1');
    expect((await redis.smembers(k.expectIndex)).sort()).toEqual(before);
  }, 60_000);
});
