// Labels on a schedule: checked (a bad key or value names the field, nothing written), stored with the
// definition, and indexed by the scripts that write and remove it (upsert-9, remove-13), so a selector
// reads the index and never a drifted copy.
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger, ScheduleOptionsError } from '../../src/index.js';
import { keys } from '../../src/store/keys/keys.js';
import { testEnv } from '../scheduler/helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const every = new IntervalTrigger(60);
const target = (name: string) => ({ name });

describe('labels', () => {
  it('are stored with the definition, sorted, and indexed per key=value', async () => {
    env = testEnv('labels');
    const m = env.manager({ role: 'client' });
    await m.schedule(target('a'), every, { id: 'a', labels: { team: 'billing', tenant: 'acme' } }).saved;
    await m.schedule(target('b'), every, { id: 'b', labels: { tenant: 'acme' } }).saved;
    await m.schedule(target('c'), every, { id: 'c' }).saved;
    const k = keys(env.prefix);
    expect((await env.redis.smembers(k.labelSet('tenant', 'acme'))).sort()).toEqual(['a', 'b']);
    expect(await env.redis.smembers(k.labelSet('team', 'billing'))).toEqual(['a']);
    expect((await env.redis.smembers(k.labelValues('tenant'))).sort()).toEqual(['acme']);
    expect((await m.get('a'))?.labels).toEqual({ team: 'billing', tenant: 'acme' });
    expect(Object.keys((await m.get('a'))?.labels ?? {})).toEqual(['team', 'tenant']);
    expect((await m.get('c'))?.labels).toEqual({});
    const stored = await env.redis.hget(k.schedules, 'c');
    expect(stored).not.toContain('"labels"'); // an unlabelled schedule stores nothing for them
  });

  it('an update moves the schedule between the index sets; a remove takes it out', async () => {
    env = testEnv('labels-move');
    const m = env.manager({ role: 'client' });
    await m.schedule(target('a'), every, { id: 'a', labels: { tenant: 'acme', team: 'ops' } }).saved;
    await m.update('a', { labels: { tenant: 'globex', team: 'ops' } });
    const k = keys(env.prefix);
    expect(await env.redis.smembers(k.labelSet('tenant', 'acme'))).toEqual([]);
    expect(await env.redis.smembers(k.labelValues('tenant'))).toEqual(['globex']);
    expect(await env.redis.smembers(k.labelSet('tenant', 'globex'))).toEqual(['a']);
    expect(await env.redis.smembers(k.labelSet('team', 'ops'))).toEqual(['a']);
    await m.update('a', { labels: null });
    expect(await env.redis.exists(k.labelSet('tenant', 'globex'), k.labelSet('team', 'ops'))).toBe(0);
    await m.update('a', { labels: { tenant: 'acme' } });
    expect(await env.redis.smembers(k.labelSet('tenant', 'acme'))).toEqual(['a']);
    expect(await m.remove('a')).toBe(true);
    expect(await env.redis.exists(k.labelSet('tenant', 'acme'), k.labelValues('tenant'))).toBe(0);
  });

  it('are indexed in each schedule partition on a partitioned deployment', async () => {
    env = testEnv('labels-parts');
    const m = env.manager({ role: 'client', partitions: 4 });
    const ids = Array.from({ length: 20 }, (_, i) => `s${i}`);
    for (const id of ids) await m.schedule(target(id), every, { id, labels: { tenant: 'acme' } }).saved;
    const k = keys(env.prefix, 4);
    const found: string[] = [];
    for (const p of k.all()) found.push(...(await env.redis.smembers(p.labelSet('tenant', 'acme'))));
    expect(found.sort()).toEqual([...ids].sort());
    expect(new Set(ids.map((id) => k.partitionOf(id))).size).toBeGreaterThan(1);
    expect((await m.list({ selector: 'tenant=acme' })).map((j) => j.id).sort()).toEqual([...ids].sort());
  });

  it.each([
    [{ 'my key': 'x' }, 'labels.my key', 'key "my key"'],
    [{ tenant: 'a b' }, 'labels.tenant', 'value "a b"'],
    [{ ['x'.repeat(64)]: 'v' }, `labels.${'x'.repeat(64)}`, 'must be 1-63 characters'],
    [{ 'Bad_Prefix/k': 'v' }, 'labels.Bad_Prefix/k', 'prefix must be a DNS subdomain'],
    [{ k: 3 }, 'labels.k', 'must be a string'],
    [['a'], 'labels', 'must be an object'],
  ])('refuses %j naming the field, writing nothing', async (labels, field, reason) => {
    env = testEnv('labels-bad');
    const m = env.manager({ role: 'client' });
    let err: unknown;
    try {
      await m.schedule(target('a'), every, { id: 'a', labels: labels as Record<string, string> }).saved;
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect((err as ScheduleOptionsError).field).toBe(field);
    expect((err as ScheduleOptionsError).reason).toContain(reason);
    expect(await m.get('a')).toBeUndefined();
  });
});
