// The audit trail, change by change: each change to a schedule appends its entry (op, actor, source,
// Redis time and the change's own fields) in the script that makes the change; the trail is bounded
// (auditLimit) and outlives a remove for auditRetentionMs.
import { afterEach, describe, expect, it } from 'vitest';
import { IntervalTrigger } from '../../src/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { ScheduleStore } from '../../src/store/deployment/schedule-store.js';
import type { AuditEntry } from '../../src/store/forms/audit-entry.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { redisNow, testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(async () => {
  await env.cleanup();
});

const cli = { by: 'cli:ann@box', via: 'cli' } as const;
const ops = (entries: AuditEntry[]) => entries.map((e) => e.op);

describe('audit trail', () => {
  it('records create, update (fields before and after), pause with its note, resume with its policy, trigger, backfill and remove', async () => {
    env = testEnv('audit');
    const m = env.manager({ role: 'client' });
    const t0 = await redisNow(env.redis);
    await m.schedule(
      { name: 'report' },
      new IntervalTrigger(60),
      { id: 'r' },
      { by: 'dashboard:ann', via: 'dashboard' },
    ).saved;
    await m.update(
      'r',
      { trigger: new CronTrigger('0 9 * * *'), data: { to: 'ops' } },
      { by: 'api:deploy-bot', via: 'api' },
    );
    await m.update('r', { data: { to: 'ops' } }, cli); // nothing changed: no entry
    expect(await m.pause('r', { note: 'vendor outage', ...cli })).toBe(true);
    expect(await m.pause('r', { note: 'again', ...cli })).toBe(false); // not active: no entry
    expect(await m.resume('r', { policy: 'once', ...cli })).toBe(true);
    await m.triggerNow('r', cli);
    const from = Date.UTC(2026, 0, 1);
    await m.backfill('r', { from, to: from + 3 * 86_400_000, ...cli });
    expect(await m.remove('r', cli)).toBe(true);

    const trail = await m.auditTrail('r');
    expect(ops(trail)).toEqual(['remove', 'backfill', 'trigger', 'resume', 'pause', 'update', 'create']);
    const [remove, backfill, trigger, resume, pause, update, create] = trail as AuditEntry[];
    expect(create).toMatchObject({ actor: 'dashboard:ann', source: 'dashboard' });
    expect(create?.definition?.trigger).toEqual({ type: 'interval', seconds: 60 });
    expect(update).toMatchObject({ actor: 'api:deploy-bot', source: 'api' });
    expect(update?.changes).toEqual([
      {
        field: 'trigger',
        before: { type: 'interval', seconds: 60 },
        after: { type: 'cron', expression: '0 9 * * *' },
      },
      { field: 'data', before: undefined, after: { to: 'ops' } },
    ]);
    expect(pause).toMatchObject({ actor: 'cli:ann@box', source: 'cli', note: 'vendor outage' });
    expect(resume).toMatchObject({ policy: 'once', runs: 0 });
    expect(trigger).toMatchObject({ jobId: expect.stringContaining('bb-r-m'), fireAt: expect.any(Number) });
    expect(backfill).toMatchObject({ from, to: from + 3 * 86_400_000, runs: 3 });
    expect(remove?.changes?.map((c) => c.field)).toContain('trigger');
    expect(remove?.definition?.data).toEqual({ to: 'ops' });
    // the time is Redis's, in order
    const times = trail.map((e) => e.at).reverse();
    expect(times[0]).toBeGreaterThanOrEqual(t0);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('a caller that does not say who it is is this process (host:pid), source runtime; a bad actor is refused, nothing changed', async () => {
    env = testEnv('audit-who');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'w' }, new IntervalTrigger(60), { id: 'w' }).saved;
    const [create] = await m.auditTrail('w');
    expect(create).toMatchObject({
      op: 'create',
      actor: `${(await import('node:os')).hostname()}:${process.pid}`,
      source: 'runtime',
    });
    await expect(m.pause('w', { via: 'telepathy' as never })).rejects.toThrow(/via/);
    await expect(m.remove('w', { by: '' })).rejects.toThrow(/by/);
    expect(ops(await m.auditTrail('w'))).toEqual(['create']);
    expect((await m.get('w'))?.status).toBe('active');
  });

  it('a deploy of a changed code schedule records what changed, actor code; an unchanged one records nothing', async () => {
    env = testEnv('audit-code');
    const first = env.manager({ role: 'client' });
    first.every(60, { id: 'tick' })(function tick() {});
    await first.start();
    await first.stop();
    const same = env.manager({ role: 'client' });
    same.every(60, { id: 'tick' })(function tick() {});
    await same.start();
    await same.stop();
    const changed = env.manager({ role: 'client' });
    changed.every(30, { id: 'tick', maxInstances: 2 })(function tick() {});
    await changed.start();
    const trail = await changed.auditTrail('tick');
    expect(ops(trail)).toEqual(['update', 'create']);
    expect(trail[0]).toMatchObject({ actor: 'code', source: 'code' });
    expect(trail[0]?.changes).toEqual([
      {
        field: 'trigger',
        before: { type: 'interval', seconds: 60 },
        after: { type: 'interval', seconds: 30 },
      },
      {
        field: 'run',
        before: { maxInstances: 1, overlap: 'skip', slot: { mode: 'skip', cap: 1 } },
        after: { maxInstances: 2, overlap: 'skip', slot: { mode: 'skip', cap: 2 } }, // the rule with it
      },
    ]);
  });

  it('records errored and cleared', async () => {
    env = testEnv('audit-err');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'e' }, new IntervalTrigger(60), { id: 'e' }).saved;
    const store = new ScheduleStore(env.redis, internalsOf(m).keys, 100);
    const now = await redisNow(env.redis);
    expect(await store.markErrored('e', '', { reason: 'cannot plan it', at: now, fireAt: 1234 }, now)).toBe(
      true,
    );
    expect(await m.resume('e', { by: 'ops', via: 'api' })).toBe(true);
    const [cleared, errored] = await m.auditTrail('e');
    expect(errored).toMatchObject({
      op: 'errored',
      actor: 'bullbeat',
      source: 'runtime',
      reason: 'cannot plan it',
      fireAt: 1234,
    });
    expect(cleared).toMatchObject({ op: 'cleared', actor: 'ops', source: 'api', next: expect.any(Number) });
  });

  it('keeps the newest auditLimit entries, pages with before, and none with auditLimit 0', async () => {
    env = testEnv('audit-bound');
    const m = env.manager({ role: 'client', auditLimit: 3 });
    await m.schedule({ name: 'b' }, new IntervalTrigger(60), { id: 'b' }).saved;
    for (let i = 0; i < 4; i++) {
      await m.pause('b', { note: `p${i}` });
      await m.resume('b');
    }
    const trail = await m.auditTrail('b');
    expect(trail.map((e) => `${e.op}${e.note ?? ''}`)).toEqual(['resume', 'pausep3', 'resume']);
    expect(await env.redis.xlen(internalsOf(m).keys.audit('b'))).toBe(3);
    const page = await m.auditTrail('b', { limit: 1, before: trail[0]?.id as string });
    expect(page.map((e) => e.note)).toEqual(['p3']);

    const off = env.manager({ role: 'client', auditLimit: 0 });
    await off.schedule({ name: 'n' }, new IntervalTrigger(60), { id: 'n' }).saved;
    await off.pause('n');
    expect(await off.auditTrail('n')).toEqual([]);
    expect(await env.redis.exists(internalsOf(off).keys.audit('n'))).toBe(0);
  });

  it('keeps a removed schedule’s trail for auditRetentionMs; one created again under its id continues it, without an expiry', async () => {
    env = testEnv('audit-keep');
    const m = env.manager({ role: 'client', auditRetentionMs: 60_000 });
    await m.schedule({ name: 'k' }, new IntervalTrigger(60), { id: 'k' }).saved;
    await m.remove('k', { by: 'ann' });
    expect(await m.get('k')).toBeUndefined();
    const ttl = await env.redis.pttl(internalsOf(m).keys.audit('k'));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(ops(await m.auditTrail('k'))).toEqual(['remove', 'create']);
    await m.schedule({ name: 'k' }, new IntervalTrigger(60), { id: 'k' }).saved;
    expect(ops(await m.auditTrail('k'))).toEqual(['create', 'remove', 'create']);
    expect(await env.redis.pttl(internalsOf(m).keys.audit('k'))).toBe(-1);

    const gone = env.manager({ role: 'client', auditRetentionMs: 0 });
    await gone.schedule({ name: 'g' }, new IntervalTrigger(60), { id: 'g' }).saved;
    await gone.remove('g');
    expect(await env.redis.exists(internalsOf(gone).keys.audit('g'))).toBe(0);
  });

  it('the actor is who the embedding code says authenticated; a caller’s own claim is `onBehalfOf`; `bullbeat` is the system’s alone', async () => {
    env = testEnv('audit-who');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'w' }, new IntervalTrigger(60), { id: 'w' }).saved;
    await m.pause('w', { by: 'api:deploy-bot', via: 'api', onBehalfOf: 'ann@example.com', note: 'n' });
    expect((await m.get('w'))?.pauseNote).toMatchObject({
      by: 'api:deploy-bot',
      onBehalfOf: 'ann@example.com',
    });
    await m.resume('w', { by: 'api:deploy-bot', via: 'api' });
    await m.triggerNow('w', { ...cli, onBehalfOf: 'bob' });
    const [trigger, resume, pause] = await m.auditTrail('w');
    expect(pause).toMatchObject({
      op: 'pause',
      actor: 'api:deploy-bot',
      source: 'api',
      onBehalfOf: 'ann@example.com',
    });
    expect(resume).toMatchObject({ op: 'resume', actor: 'api:deploy-bot' });
    expect(resume).not.toHaveProperty('onBehalfOf');
    expect(trigger).toMatchObject({ op: 'trigger', actor: 'cli:ann@box', onBehalfOf: 'bob' });

    const before = (await m.auditTrail('w')).length;
    for (const [field, change] of [
      ['by', { by: 'bullbeat' }],
      ['by', { by: 'BULLBEAT ' }],
      ['onBehalfOf', { onBehalfOf: 'bullbeat' }],
      ['onBehalfOf', { onBehalfOf: '' }],
    ] as const) {
      await expect(m.pause('w', change), JSON.stringify(change)).rejects.toMatchObject({
        name: 'ScheduleOptionsError',
        field,
      });
      await expect(m.update('w', { maxRuns: 3 }, change)).rejects.toMatchObject({ field });
      await expect(m.backfill('w', { from: 0, to: 1, ...change })).rejects.toMatchObject({ field });
    }
    expect((await m.get('w'))?.status).toBe('active');
    expect(await m.auditTrail('w')).toHaveLength(before);
  });
});
