import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import type { ScheduleDefinition } from '../../src/store/forms/definition-schema.js';
import { occurrenceJobId } from '../../src/store/forms/job-payload.js';
import {
  decodeDefinition,
  encodeDefinition,
  peekNameAndQueue,
} from '../../src/store/forms/schedule-definition.js';
import { keys } from '../../src/store/keys/keys.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { REDIS_URL, redisNow, silent, testEnv } from '../scheduler/helpers.js';
import { waitUntil } from '../wait-until.js';

const m = new SchedulerManager({ prefix: 'never-started-compact', logger: silent, role: 'client' });

/** Definitions as `schedule()` makes them: all defaults, and every option away from its default. */
function definitions(): ScheduleDefinition[] {
  return [
    m.schedule({ name: 'plain' }, new IntervalTrigger(60), { id: 'plain' }).def,
    m.schedule({ name: 'report', queue: 'reports' }, new IntervalTrigger(60), {
      id: 'all-options',
      args: [1, 'two'],
      data: { x: 1 },
      maxInstances: 0,
      coalesce: false,
      attempts: 3,
      backoff: { type: 'fixed', delay: 10 },
      timeoutMs: 500,
      misfire: 'all',
      misfireGraceMs: 0,
      catchUpWindowMs: 1000,
      maxCatchUp: 5,
      startAt: 2_000_000_000_000,
      endAt: 2_100_000_000_000,
      maxRuns: 7,
      exclusionGroup: 'g',
      exclusionWaitMs: 100,
      jobOptions: { priority: 2 },
    }).def,
    m.schedule({ name: 'two' }, new IntervalTrigger(60), { id: 'two', maxInstances: 2 }).def,
    { ...m.schedule({ name: 'code' }, new IntervalTrigger(60), { id: 'code' }).def, source: 'code' },
  ];
}

describe('compact definitions', () => {
  it('each definition decodes from its compact form to the same value', () => {
    for (const def of definitions()) {
      const { def: back, problem } = decodeDefinition(def.id, encodeDefinition(def));
      expect(problem).toBeUndefined();
      expect(back).toEqual(def);
    }
  });

  it('the compact form leaves out the id and every default, name and queue first', () => {
    const def = definitions()[0]!;
    const json = encodeDefinition(def);
    expect(json).toBe(
      '{"name":"plain","queue":"never-started-compact","trigger":{"type":"interval","seconds":60}}',
    );
    expect(json.length).toBeLessThan(JSON.stringify(def).length / 2);
    expect(peekNameAndQueue('plain', json)).toEqual({ name: 'plain', queue: 'never-started-compact' });
  });

  it("rows written by the previous release (full JSON, id first) still read, peek and keep their rules' errors", () => {
    for (const def of definitions()) {
      const old = JSON.stringify(def);
      expect(old.startsWith(`{"id":`)).toBe(true);
      const { def: back, problem } = decodeDefinition(def.id, old);
      expect(problem).toBeUndefined();
      expect(back).toEqual(def);
      expect(peekNameAndQueue(def.id, old)).toEqual({ name: def.name, queue: def.queue });
    }
    const bad = decodeDefinition('p', JSON.stringify({ ...definitions()[0], run: 'x' }));
    expect(bad.problem).toContain('run: must be an object');
  });
});

describe('compact definitions in Redis', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('an old-format row fires, and the next upsert from code rewrites it compact', async () => {
    env = testEnv('compat');
    const k = keys(env.prefix);
    const now = await redisNow(env.redis);
    const due = now; // due at once (within the misfire grace: it fires)
    // the row exactly as the previous release wrote it
    const def = {
      id: 'old',
      name: 'tick',
      queue: env.queue,
      source: 'runtime',
      trigger: { type: 'interval', seconds: 3600 },
      args: [],
      run: { maxInstances: 1, coalesce: true },
      attempts: 1,
      misfire: 'once',
      misfireGraceMs: 60000,
      maxCatchUp: 1000,
    };
    await env.redis.hset(k.schedules, 'old', JSON.stringify(def));
    await env.redis.hset(k.state, 'old', `a|0||${now}|00000000|r`);
    await env.redis.zadd(k.due, due, 'old');

    const a = env.manager();
    const read = await a.get('old');
    expect(read?.queue).toBe(env.queue);
    expect(read?.maxInstances).toBe(1);
    await a.start();
    await waitUntil(async () => (await env.jobIds()).includes(occurrenceJobId('old', due)));
    await a.stop();
    const q = new Queue(env.queue, { connection: { url: REDIS_URL } });
    const job = await q.getJob(occurrenceJobId('old', due));
    await q.close();
    expect(job?.name).toBe('tick');

    // a process whose code defines it upserts it: same timing, so the same due time, stored compact
    const b = env.manager({ role: 'client' });
    const same = b.schedule({ name: 'tick', queue: env.queue }, new IntervalTrigger(3600), { id: 'old' });
    await same.saved;
    const stored = (await env.redis.hget(k.schedules, 'old'))!;
    expect(stored).toBe(
      `{"name":"tick","queue":"${env.queue}","trigger":{"type":"interval","seconds":3600}}`,
    );
    expect((await b.get('old'))?.maxInstances).toBe(1);
  });

  it('an idle schedule costs Redis at most 512 B (its definition, state row, due entry, its one list index entry)', async () => {
    env = testEnv('compact-mem');
    const c = env.manager({ role: 'client' });
    const n = 1000;
    const saved = [];
    for (let i = 0; i < n; i++) {
      saved.push(
        c.schedule({ name: 'tick' }, new IntervalTrigger(1, { anchor: i }), {
          id: `s${i}`,
          jobOptions: { removeOnComplete: { age: 5 }, removeOnFail: { age: 5 } },
        }).saved,
      );
    }
    await Promise.all(saved);
    const k = keys(env.prefix);
    let total = 0;
    const per: Record<string, number> = {};
    for (const key of [k.schedules, k.state, k.due, k.queueNames(env.queue), k.queues]) {
      per[key.slice(key.lastIndexOf(':') + 1)] =
        Number(await env.redis.memory('USAGE', key, 'SAMPLES', 0)) / n;
      total += Number(await env.redis.memory('USAGE', key, 'SAMPLES', 0));
    }
    expect(total / n, JSON.stringify(per)).toBeLessThanOrEqual(512);
  });

  it("a schedule's audit trail keeps no 4 KB stream node: its create entry costs under 1 KB, later entries append", async () => {
    env = testEnv('compact-audit');
    const c = env.manager({ role: 'client' });
    const n = 200;
    await Promise.all(
      Array.from(
        { length: n },
        (_, i) => c.schedule({ name: 'tick' }, new IntervalTrigger(60), { id: `a${i}` }).saved,
      ),
    );
    const k = keys(env.prefix);
    // every key a trail may take: its stream, and its partition's first-entry hashes
    const trailKeys = new Set<string>();
    for (let i = 0; i < n; i++) trailKeys.add(k.audit(`a${i}`)).add(k.auditFirst(`a${i}`));
    let trails = 0;
    for (const key of trailKeys) trails += Number((await env.redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
    // a stream made by XADD alone readies a 4,096 B node: ~4.7 KB for one entry
    expect(trails / n).toBeLessThan(1024);
    // the trail is the same one, its entry then the next change's: the first keeps its id
    const [create] = await c.auditTrail('a0');
    expect(create).toMatchObject({ op: 'create', definition: { name: 'tick' } });
    await c.pause('a0');
    const entries = await c.auditTrail('a0');
    expect(entries.map((e) => [e.id === create?.id, e.op]).reverse()).toEqual([
      [true, 'create'],
      [false, 'pause'],
    ]);
    expect(await env.redis.pttl(k.audit('a0'))).toBe(-1);
  });
});
