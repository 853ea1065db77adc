import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../src/errors/index.js';
import { ScheduleStore } from '../../src/store/deployment/schedule-store.js';
import { keys } from '../../src/store/keys/keys.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';

describe('update(id, patch)', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  /** A client manager whose warnings are kept. */
  function client() {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    return { m: env.manager({ role: 'client', logger }), warnings: lines };
  }

  const stored = async (id: string) => ({
    def: await env.redis.hget(keys(env.prefix).schedules, id),
    state: await env.redis.hget(keys(env.prefix).state, id),
    due: await env.redis.zscore(keys(env.prefix).due, id),
  });

  it('merges the patch with what is stored: a new trigger re-times it, the rest is kept, no warning', async () => {
    env = testEnv('update-merge');
    const { m, warnings } = client();
    await m.schedule({ name: 'report' }, new IntervalTrigger(3600), {
      id: 'r',
      attempts: 3,
      data: { a: 1 },
      payload: 'plain',
      endAt: Date.UTC(2100, 0, 1),
    }).saved;
    const before = (await m.get('r'))!;
    const updated = await m.update('r', {
      trigger: { type: 'cron', expression: '30 7 * * *', timezone: 'Europe/Paris' },
      maxInstances: 2,
      endAt: null,
    });
    expect(updated.def.trigger).toEqual({ type: 'cron', expression: '30 7 * * *', timezone: 'Europe/Paris' });
    expect(updated.def.run.maxInstances).toBe(2);
    expect(updated.def.attempts).toBe(3);
    expect(updated.def.data).toEqual({ a: 1 });
    expect(updated.def.payload).toBe('plain'); // a plain BullMQ worker still reads job.data as its data
    expect(updated.def.endAt).toBeUndefined();
    expect(updated.def.source).toBe('runtime');
    expect(updated.createdAt).toBe(before.createdAt);
    const next = new CronTrigger('30 7 * * *', { timezone: 'Europe/Paris' }).nextFire(null, Date.now());
    expect(updated.nextRunTime).toBe(next);
    // a trigger object works too; only options: the due time is kept
    const again = await m.update('r', { attempts: 5 });
    expect(again.nextRunTime).toBe(next);
    expect(warnings.join('')).not.toContain('defined twice');
  });

  it('a paused schedule stays paused', async () => {
    env = testEnv('update-paused');
    const { m } = client();
    await m.schedule({ name: 'p' }, new IntervalTrigger(60), { id: 'p' }).saved;
    await m.pause('p');
    const updated = await m.update('p', { trigger: new IntervalTrigger(120) });
    expect(updated.status).toBe('paused');
    expect(updated.def.trigger).toMatchObject({ type: 'interval', seconds: 120 });
    expect(await env.redis.zscore(keys(env.prefix).due, 'p')).toBeNull();
  });

  it('bad patches are refused naming the field, and nothing changes', async () => {
    env = testEnv('update-bad');
    const { m } = client();
    await m.schedule({ name: 'b' }, new IntervalTrigger(60), { id: 'b' }).saved;
    const was = await stored('b');
    const cases: [unknown, string][] = [
      [{ maxInstances: -1 }, 'maxInstances'],
      [{ trigger: { type: 'interval', seconds: 0 } }, 'trigger.seconds'],
      [{ trigger: { type: 'cron', expression: '61 * * * *' } }, 'trigger'],
      [{ maxInstace: 2 }, 'maxInstace'],
      [{ id: 'other' }, 'id'],
      [{ name: null }, 'name'],
      [{ queue: 'a:b' }, 'queue'],
      [{ startAt: Date.UTC(2030, 0, 2), endAt: Date.UTC(2030, 0, 1) }, 'endAt'],
      [null, 'patch'],
    ];
    for (const [patch, field] of cases) {
      const err = await m.update('b', patch as never).catch((e: unknown) => e);
      expect(err, JSON.stringify(patch)).toBeInstanceOf(ScheduleOptionsError);
      expect((err as ScheduleOptionsError).field.startsWith(field), `${JSON.stringify(patch)}: ${err}`).toBe(
        true,
      );
    }
    expect(await stored('b')).toEqual(was);
  });

  it('a missing id is ScheduleNotFoundError; a code schedule is refused (its next start would overwrite it)', async () => {
    env = testEnv('update-code');
    await expect(env.manager({ role: 'client' }).update('nope', { attempts: 2 })).rejects.toBeInstanceOf(
      ScheduleNotFoundError,
    );
    const code = env.manager({ role: 'client' });
    code.every(60)(async function fromCode() {});
    await code.start();
    const was = await stored('fromCode');
    const err = (await code
      .update('fromCode', { attempts: 2 })
      .catch((e: unknown) => e)) as ScheduleOptionsError;
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect(err.field).toBe('source');
    expect(err.message).toContain('defined in code');
    expect(await stored('fromCode')).toEqual(was);
  });
  it('an update racing a remove never brings the schedule back: it fails with ScheduleNotFoundError or lands before the remove', async () => {
    env = testEnv('update-remove-race');
    const updater = env.manager({ role: 'client' });
    const remover = env.manager({ role: 'client' });
    for (let trial = 0; trial < 60; trial++) {
      const id = `race-${trial}`;
      await updater.schedule({ name: 'r' }, new IntervalTrigger(60), { id }).saved;
      const update = updater.update(id, { trigger: new IntervalTrigger(120) }).catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, trial % 5));
      expect(await remover.remove(id)).toBe(true);
      const result = await update;
      if (result instanceof Error) {
        expect(result, `trial ${trial}`).toBeInstanceOf(ScheduleNotFoundError);
      }
      expect(await stored(id), `trial ${trial}: the removed schedule is back`).toEqual({
        def: null,
        state: null,
        due: null,
      });
    }
  });

  it('an update whose schedule was removed and created again meanwhile leaves the new one alone', async () => {
    env = testEnv('update-recreated');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'old' }, new IntervalTrigger(60), { id: 'x' }).saved;
    const store = new ScheduleStore(env.redis, keys(env.prefix), 100);
    const row = (await store.get('x'))!;
    await m.remove('x');
    await new Promise((resolve) => setTimeout(resolve, 2));
    await m.schedule({ name: 'new' }, new IntervalTrigger(90), { id: 'x' }).saved;
    const was = await stored('x');
    const def = { ...row.def, name: 'patched' };
    const result = await store.upsert(def, 'other', Date.now() + 1000, Date.now(), {
      ifCreatedAt: row.state.createdAt,
    });
    expect(result).toBe('missing');
    expect(await stored('x')).toEqual(was);
  });
});
