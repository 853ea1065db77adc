// groups(): read from the group index kept with the definitions, not from every schedule. Many
// schedules, few groups; the index follows updates and removals; a deployment written before the
// index existed is indexed once, from its definitions; a schedule created or removed by a writer that
// keeps no index (an earlier release, during a rolling upgrade) is found or dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { groups, IntervalTrigger } from '../../src/index.js';
import { internalsOf, type ScheduleManyItem } from '../../src/scheduler/index.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const N = 5000;
const KEYS = ['tenant:acme', 'tenant:globex', 'tenant:initech'];

function items(): ScheduleManyItem[] {
  return Array.from({ length: N }, (_, i) => ({
    target: { name: 'report' },
    trigger: new IntervalTrigger(3600),
    options: {
      id: `g${i}`,
      // every 10th schedule in a group, the rest in none
      ...(i % 10 === 0 && { group: { key: KEYS[i % 3]!, max: 2 + (i % 3) } }),
    },
  }));
}

const want = (counts: number[]) =>
  KEYS.map((key, j) => ({ key, max: 2 + j, schedules: counts[j], running: 0, waiting: 0 }));

describe('groups() from the group index', () => {
  for (const partitions of [1, 4]) {
    it(`${N} schedules, 3 groups, ${partitions} partition(s): answered from the index, which follows updates and removals`, async () => {
      env = testEnv(`groups-index-${partitions}`);
      const m = env.manager({ role: 'client', auditLimit: 0, partitions });
      await m.scheduleMany(items());
      // a deployment created with the index: each partition marked by its first create, so no scan
      const marks = await Promise.all(
        Array.from({ length: partitions }, (_, i) =>
          env.redis.get(
            partitions === 1 ? `{${env.prefix}}:bb:groupidx` : internalsOf(m).keys.partition(i).groupsIndexed,
          ),
        ),
      );
      expect(marks).toEqual(Array.from({ length: partitions }, () => '1'));
      // 500 grouped: i % 10 === 0, so i % 3 cycles over 0, 1, 2 for i = 0, 10, 20, ...
      const counts = [0, 1, 2].map(
        (j) => Array.from({ length: N / 10 }, (_, n) => n * 10).filter((i) => i % 3 === j).length,
      );
      expect(await groups(m)).toEqual(want(counts));

      // moved to another group, left its group, removed: each reflected
      await m.update('g0', { group: { key: 'tenant:globex', max: 3 } }); // acme -> globex
      await m.update('g10', { group: null }); // globex -> none
      await m.remove('g20'); // initech, removed
      await m.update('g1', { group: { key: 'tenant:new', max: 1 } }); // none -> a new group
      const after = await groups(m);
      expect(after).toEqual([
        ...want([counts[0]! - 1, counts[1]!, counts[2]! - 1]),
        { key: 'tenant:new', max: 1, schedules: 1, running: 0, waiting: 0 },
      ]);
      await m.update('g1', { group: null });
      expect((await groups(m)).map((g) => g.key)).toEqual(KEYS); // an emptied group goes

      // the read touches the index only (and the list indexes' counts per partition): no definition is read
      const redis = internalsOf(m).redis;
      const sent: string[] = [];
      const send = redis.sendCommand.bind(redis);
      (redis as unknown as { sendCommand: typeof send }).sendCommand = ((cmd, ...rest) => {
        sent.push(`${cmd.name.toLowerCase()} ${String(cmd.args[0] ?? '')}`);
        return send(cmd, ...rest);
      }) as typeof send;
      expect(await groups(m)).toEqual(want([counts[0]! - 1, counts[1]!, counts[2]! - 1]));
      const ofDefinitions = sent.filter((c) => c.endsWith(':schedules'));
      // at most a count of them (HLEN) per partition, never a read of one
      expect(ofDefinitions.filter((c) => !c.startsWith('hlen '))).toEqual([]);
      expect(ofDefinitions.length).toBeLessThanOrEqual(partitions);
    }, 120_000);
  }

  it('a deployment written before the index existed is indexed once, from its definitions', async () => {
    env = testEnv('groups-index-old');
    const m = env.manager({ role: 'client', auditLimit: 0 });
    await m.scheduleMany(items().slice(0, 300));
    const before = await groups(m);
    expect(before.map((g) => g.schedules)).toEqual([10, 10, 10]);
    // drop the index and its mark, as data written by a release without it has neither
    const indexKeys = await env.redis.keys(`{${env.prefix}}:bb:group*`);
    expect(indexKeys.length).toBeGreaterThan(0);
    await env.redis.del(...indexKeys);
    expect(await env.redis.exists(`{${env.prefix}}:bb:groupidx`)).toBe(0);
    expect(await groups(m)).toEqual(before);
    expect(await env.redis.get(`{${env.prefix}}:bb:groupidx`)).toBe('1');
  });

  it('a grouped schedule written or removed by a writer that keeps no group index is found (or dropped) by groups()', async () => {
    env = testEnv('groups-index-mixed');
    const m = env.manager({ role: 'client', auditLimit: 0 });
    await m.scheduleMany(items().slice(0, 300));
    const before = await groups(m);
    expect(before.map((g) => g.schedules)).toEqual([10, 10, 10]);
    // an older writer's create: its definition (with a group), state row and due entry, nothing else
    const base = `{${env.prefix}}:bb`;
    const def = JSON.parse((await env.redis.hget(`${base}:schedules`, 'g0')) as string) as {
      run: { group: { key: string; max: number } };
    };
    const state = (await env.redis.hget(`${base}:state`, 'g0')) as string;
    const old = { ...def, run: { ...def.run, group: { key: 'tenant:old', max: 4 } } };
    await env.redis.hset(`${base}:schedules`, 'old-1', JSON.stringify(old));
    await env.redis.hset(`${base}:state`, 'old-1', state);
    await env.redis.zadd(`${base}:due`, Date.now() + 3_600_000, 'old-1');
    expect(await groups(m)).toEqual([
      ...before,
      { key: 'tenant:old', max: 4, schedules: 1, running: 0, waiting: 0 },
    ]);
    // and its removal of g10 (tenant:globex): definition, state and due entry gone, the index untouched
    await env.redis.hdel(`${base}:schedules`, 'g10');
    await env.redis.hdel(`${base}:state`, 'g10');
    await env.redis.zrem(`${base}:due`, 'g10');
    expect((await groups(m)).map((g) => [g.key, g.schedules])).toEqual([
      ['tenant:acme', 10],
      ['tenant:globex', 9],
      ['tenant:initech', 10],
      ['tenant:old', 1],
    ]);
    // its change of g20's group (initech -> acme) changes no count: seen at the next repair of the
    // partition, which its next create brings
    const g20 = JSON.parse((await env.redis.hget(`${base}:schedules`, 'g20')) as string) as typeof def;
    const moved = { ...g20, run: { ...g20.run, group: { key: 'tenant:acme', max: 2 } } };
    await env.redis.hset(`${base}:schedules`, 'g20', JSON.stringify(moved));
    await env.redis.hset(`${base}:schedules`, 'old-2', JSON.stringify({ ...def, run: {} }));
    await env.redis.hset(`${base}:state`, 'old-2', state);
    expect((await groups(m)).map((g) => [g.key, g.schedules])).toEqual([
      ['tenant:acme', 11],
      ['tenant:globex', 9],
      ['tenant:initech', 9],
      ['tenant:old', 1],
    ]);
    await env.redis.hdel(`${base}:schedules`, 'old-2');
    await env.redis.hdel(`${base}:state`, 'old-2');
    // the list by name has both right too
    const listed = (await m.listPage({ order: 'name', cursor: '0', limit: 1000 })).items.map((j) => j.id);
    expect(listed).toContain('old-1');
    expect(listed).not.toContain('g10');
    expect(listed).toHaveLength(300);
  });
});
