// The audit trail's two forms (data format 2, includes/audit.lua): a trail whose one entry is its
// schedule's `create` is a field of its partition's first-entry hash (`keys.auditFirst`), no stream of
// its own; its next entry, or first any change to the definition, moves it into the stream under its
// own id with the definition it created. Read as one trail in both forms. And what a process of the
// previous release (format 1, which knows only the stream) does beside it while a roll lasts: its
// entries go to the stream, and this release's readers and next entry put the trail back in order.
// Last, the bound the form is for: an idle schedule with its trail costs at most 512 B of `used_memory`
// (~475 B at 2,000 schedules: its one list index entry, in its queue's index, since data format 3; a
// stream per trail measured 845 B).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import type { AuditEntry } from '../../src/store/forms/audit-entry.js';
import { AUDIT_BUCKETS, auditBucket, keys } from '../../src/store/keys/keys.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { redisNow, silent, testEnv } from '../scheduler/helpers.js';
import { startRedisServer } from '../setup/redis-server.js';
import { waitUntil } from '../wait-until.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env?.cleanup();
});

const ops = (entries: AuditEntry[]) => entries.map((e) => e.op);
const cli = { by: 'cli:ann@box', via: 'cli' } as const;

describe('the first entry of a trail', () => {
  it('a create is one field of its partition’s first-entry hash, the one keys.ts names, and no stream', async () => {
    env = testEnv('first-form');
    for (const partitions of [1, 4]) {
      const m = env.manager({ role: 'client', partitions, prefix: `${env.prefix}-${partitions}` });
      const k = keys(`${env.prefix}-${partitions}`, partitions);
      const ids = Array.from({ length: 200 }, (_, i) => `p${i}`);
      await Promise.all(
        ids.map((id) => m.schedule({ name: id }, new IntervalTrigger(60), { id }, cli).saved),
      );
      // read together (one pipeline each), checked one by one
      const firsts = await Promise.all(ids.map((id) => env.redis.hget(k.auditFirst(id), id)));
      const streams = await Promise.all(ids.map((id) => env.redis.exists(k.audit(id))));
      ids.forEach((id, i) => {
        expect(firsts[i], id).toMatch(/^[0-9a-z]{8}\|lcli:ann@box$/);
        expect(streams[i], id).toBe(0);
      });
      // the ids spread over the buckets (SHA-1 of the id, mod 64), in Lua as in keys.ts
      expect(new Set(ids.map(auditBucket)).size).toBeGreaterThan(AUDIT_BUCKETS / 2);
      const [create] = await m.auditTrail('p0');
      expect(create).toMatchObject({ op: 'create', actor: 'cli:ann@box', source: 'cli' });
      expect(create?.definition).toMatchObject({ name: 'p0', trigger: { type: 'interval', seconds: 60 } });
      expect(create?.id).toBe(`${create?.at}-0`);
      await m.close();
      const left = await env.redis.keys(`{${env.prefix}-${partitions}*`);
      if (left.length > 0) await env.redis.del(...left);
    }
  });

  it('the next entry moves it into the stream under its own id, with the definition it created', async () => {
    env = testEnv('first-move');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    await m.schedule({ name: 'r' }, new IntervalTrigger(60), { id: 'r' }, cli).saved;
    const [create] = await m.auditTrail('r');
    await m.update('r', { trigger: new CronTrigger('0 9 * * *') }, { by: 'api:bot', via: 'api' });
    expect(await env.redis.hget(k.auditFirst('r'), 'r')).toBeNull();
    expect(await env.redis.xlen(k.audit('r'))).toBe(2);
    const trail = await m.auditTrail('r');
    expect(ops(trail)).toEqual(['update', 'create']);
    expect(trail[1]).toEqual(create);
    expect(trail[1]?.definition?.trigger).toEqual({ type: 'interval', seconds: 60 });
    expect(trail[0]?.changes?.map((c) => c.field)).toEqual(['trigger']);
    // pages by id across the move
    expect(await m.auditTrail('r', { before: trail[0]?.id as string })).toEqual([create]);
  });

  it('a process with auditLimit 0 that changes the definition first moves the create, as it was, into the stream', async () => {
    env = testEnv('first-limit0');
    const m = env.manager({ role: 'client' });
    const off = env.manager({ role: 'client', auditLimit: 0 });
    await m.schedule({ name: 'z' }, new IntervalTrigger(60), { id: 'z' }).saved;
    await off.update('z', { trigger: new IntervalTrigger(30) });
    const trail = await m.auditTrail('z');
    expect(ops(trail)).toEqual(['create']);
    expect(trail[0]?.definition?.trigger).toEqual({ type: 'interval', seconds: 60 });
    // a remove by it keeps the trail for the retention, as a stream
    await off.remove('z');
    expect(ops(await m.auditTrail('z'))).toEqual(['create']);
    expect(await env.redis.pttl(keys(env.prefix).audit('z'))).toBeGreaterThan(0);
  });

  it('auditLimit 1 keeps the newest only; a remove keeps both forms for the retention; a create again continues, without expiry', async () => {
    env = testEnv('first-bound');
    const one = env.manager({ role: 'client', auditLimit: 1 });
    await one.schedule({ name: 'b' }, new IntervalTrigger(60), { id: 'b' }).saved;
    await one.pause('b');
    expect(ops(await one.auditTrail('b'))).toEqual(['pause']);

    const m = env.manager({ role: 'client', auditRetentionMs: 60_000 });
    const k = keys(env.prefix);
    await m.schedule({ name: 'k' }, new IntervalTrigger(60), { id: 'k' }).saved;
    await m.remove('k');
    expect(ops(await m.auditTrail('k'))).toEqual(['remove', 'create']);
    expect(await env.redis.pttl(k.audit('k'))).toBeGreaterThan(50_000);
    expect(await env.redis.hget(k.auditFirst('k'), 'k')).toBeNull();
    await m.schedule({ name: 'k' }, new IntervalTrigger(60), { id: 'k' }).saved;
    expect(ops(await m.auditTrail('k'))).toEqual(['create', 'remove', 'create']);
    expect(await env.redis.pttl(k.audit('k'))).toBe(-1);
  });

  it('goes to the stream when the hash could not hold it compactly: onBehalfOf, an id or an actor over 64 bytes', async () => {
    env = testEnv('first-stream');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    const long = 'x'.repeat(70);
    const cases = [
      { id: 'behalf', who: { ...cli, onBehalfOf: 'bob' } },
      { id: long, who: cli },
      { id: 'actor', who: { by: `api:${'y'.repeat(60)}`, via: 'api' as const } },
    ];
    for (const { id, who } of cases) {
      await m.schedule({ name: 'n' }, new IntervalTrigger(60), { id }, who).saved;
      expect(await env.redis.xlen(k.audit(id)), id).toBe(1);
      expect(await env.redis.hget(k.auditFirst(id), id), id).toBeNull();
      const [create] = await m.auditTrail(id);
      expect(create).toMatchObject({ op: 'create', actor: who.by, definition: { name: 'n' } });
    }
    expect((await m.auditTrail('behalf'))[0]?.onBehalfOf).toBe('bob');
  });
});

describe('a process of the previous release beside the first-entry form (a rolling upgrade)', () => {
  // what format 1's scripts write to a trail: XADD MAXLEN to the stream, never the first-entry hash
  const oldEntry = (id: string, ...fields: string[]) =>
    env.redis.xadd(keys(env.prefix).audit(id), 'MAXLEN', '100', '*', ...fields) as Promise<string>;
  // an entry of the old release a millisecond or more after the create (within the same one, its id
  // would equal the create's `<ms>-0`: the move then gives it the next sequence number)
  const nextMs = async (after: number) =>
    waitUntil(async () => (await redisNow(env.redis)) > after, 5000, { stepMs: 1, what: 'the next ms' });

  it('its entries go to the stream: read in order with the create, which the next entry of this release puts first in it', async () => {
    env = testEnv('roll-append');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    await m.schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' }, cli).saved;
    const [create] = await m.auditTrail('a');
    await nextMs(create?.at as number);
    await oldEntry('a', 'op', 'pause', 'actor', 'old', 'source', 'api', 'note', 'by the old release');
    const mixed = await m.auditTrail('a');
    expect(ops(mixed)).toEqual(['pause', 'create']);
    expect(mixed[1]).toEqual(create);
    expect(await m.auditTrail('a', { limit: 1 })).toEqual([mixed[0]]);
    expect(await m.auditTrail('a', { before: mixed[0]?.id as string })).toEqual([create]);
    await m.pause('a', cli);
    const entries = (await env.redis.xrange(k.audit('a'), '-', '+')) as [string, string[]][];
    expect(entries.map(([id, f]) => [id, f[1]])).toEqual([
      [create?.id, 'create'],
      [mixed[0]?.id, 'pause'],
      [expect.any(String), 'pause'],
    ]);
    expect(await env.redis.hget(k.auditFirst('a'), 'a')).toBeNull();
    expect(ops(await m.auditTrail('a'))).toEqual(['pause', 'pause', 'create']);
    expect((await m.auditTrail('a'))[2]).toEqual(create);
  });

  it('its entry within the same millisecond as the create, or before it (a clock gone back): the create stays first, the entry takes the next id', async () => {
    env = testEnv('roll-clock');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    for (const [id, offset] of [
      ['same', 0],
      ['back', -5],
    ] as const) {
      await m.schedule({ name: id }, new IntervalTrigger(60), { id }).saved;
      const [create] = await m.auditTrail(id);
      const at = create?.at as number;
      await env.redis.xadd(k.audit(id), `${at + offset}-0`, 'op', 'pause', 'actor', 'old', 'source', 'api');
      // read before the move: both, the create not after the old entry
      expect(ops(await m.auditTrail(id)).sort()).toEqual(['create', 'pause']);
      await m.pause(id); // this release's next entry moves the create into the stream
      const entries = (await env.redis.xrange(k.audit(id), '-', '+')) as [string, string[]][];
      expect(entries.map(([eid, f]) => [eid, f[1]]).slice(0, 2), id).toEqual([
        [`${at}-0`, 'create'],
        [`${at}-1`, 'pause'],
      ]);
      expect(ops(await m.auditTrail(id))).toEqual(['pause', 'pause', 'create']);
    }
  });

  it('its update: the create still shows the definition it created (the update’s before)', async () => {
    env = testEnv('roll-update');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    await m.schedule({ name: 'u' }, new IntervalTrigger(60), { id: 'u' }).saved;
    const created = (await env.redis.hget(k.schedules, 'u')) as string;
    const changed = created.replace('"seconds":60', '"seconds":30');
    await nextMs((await m.auditTrail('u'))[0]?.at as number);
    await env.redis.hset(k.schedules, 'u', changed);
    await oldEntry('u', 'op', 'update', 'actor', 'old', 'source', 'api', 'before', created, 'after', changed);
    const trail = await m.auditTrail('u');
    expect(ops(trail)).toEqual(['update', 'create']);
    expect(trail[1]?.definition?.trigger).toEqual({ type: 'interval', seconds: 60 });
    await m.pause('u');
    const settled = await m.auditTrail('u');
    expect(ops(settled)).toEqual(['pause', 'update', 'create']);
    expect(settled.slice(1)).toEqual(trail);
  });

  it('its remove: the trail reads whole for the retention; a create again by this release continues it, or, once it expired, starts afresh', async () => {
    env = testEnv('roll-remove');
    const m = env.manager({ role: 'client' });
    const k = keys(env.prefix);
    for (const id of ['kept', 'expired']) {
      await m.schedule({ name: id }, new IntervalTrigger(60), { id }).saved;
      // format 1's remove: the schedule's rows go, its `remove` entry is appended, the stream expires;
      // a millisecond after the create (one in the same millisecond is renumbered when the create
      // moves in: docs/upgrading.md)
      await nextMs((await m.auditTrail(id))[0]?.at as number);
      const def = (await env.redis.hget(k.schedules, id)) as string;
      await env.redis.hdel(k.schedules, id);
      await env.redis.hdel(k.state, id);
      await env.redis.zrem(k.due, id);
      await oldEntry(id, 'op', 'remove', 'actor', 'old', 'source', 'api', 'before', def);
      await env.redis.pexpire(k.audit(id), 60_000);
    }
    const kept = await m.auditTrail('kept');
    expect(ops(kept)).toEqual(['remove', 'create']);
    expect(kept[1]?.definition?.name).toBe('kept');
    await m.schedule({ name: 'kept2' }, new IntervalTrigger(60), { id: 'kept' }).saved;
    const again = await m.auditTrail('kept');
    expect(ops(again)).toEqual(['create', 'remove', 'create']);
    expect(again.slice(1)).toEqual(kept);
    expect(again[0]?.definition?.name).toBe('kept2');
    expect(await env.redis.pttl(k.audit('kept'))).toBe(-1);

    // the stream expired (its retention over): the first entry left behind is dropped by the next create
    await env.redis.del(k.audit('expired'));
    expect(await m.auditTrail('expired')).toEqual([]);
    await m.schedule({ name: 'fresh' }, new IntervalTrigger(60), { id: 'expired' }).saved;
    const fresh = await m.auditTrail('expired');
    expect(ops(fresh)).toEqual(['create']);
    expect(fresh[0]?.definition?.name).toBe('fresh');
  });
});

describe('memory per idle schedule', () => {
  it('2,000 idle schedules with their one-entry trail: at most 512 B of used_memory each, on a private redis-server', async () => {
    env = testEnv('first-memory'); // (unused here but by cleanup)
    const server = await startRedisServer();
    const redis = new Redis(server.url);
    const used = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);
    const create = async (prefix: string, n: number) => {
      const m = new SchedulerManager({ prefix, connection: server.url, logger: silent, role: 'client' });
      for (let from = 0; from < n; from += 500) {
        await Promise.all(
          Array.from(
            { length: Math.min(500, n - from) },
            (_, i) =>
              m.schedule({ name: 'tick' }, new IntervalTrigger(60), { id: `s${from + i}` }, cli).saved,
          ),
        );
      }
      await m.close();
    };
    try {
      // a warm server: scripts loaded, a client connected (by another deployment's schedules)
      await create(`warm-${randomUUID().slice(0, 6)}`, 100);
      const prefix = `idle-${randomUUID().slice(0, 6)}`;
      const before = await used();
      await create(prefix, 2000);
      const perSchedule = ((await used()) - before) / 2000;
      expect(perSchedule).toBeLessThanOrEqual(512);
      const k = keys(prefix);
      expect(await redis.exists(k.audit('s0'))).toBe(0);
      expect(await redis.hget(k.auditFirst('s0'), 's0')).not.toBeNull();
    } finally {
      await redis.quit();
      await server.stop();
    }
  });
});
