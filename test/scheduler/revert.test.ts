// revert(id, { to }): a runtime schedule back to a definition from its audit trail, as a new audited
// change whose next fire time follows the restored trigger; a code schedule, an entry of another
// schedule, a bad entry id and an entry without a definition are refused naming the field, nothing changed.
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { keys } from '../../src/store/keys/keys.js';
import { CronTrigger } from '../../src/triggers/cron-trigger.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';

describe('revert(id)', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  const stored = async (id: string) => ({
    def: await env.redis.hget(keys(env.prefix).schedules, id),
    state: await env.redis.hget(keys(env.prefix).state, id),
    due: await env.redis.zscore(keys(env.prefix).due, id),
    audit: await env.redis.xlen(keys(env.prefix).audit(id)),
  });

  it('after an update, restores the previous trigger and options, audited, next fire time by the restored trigger', async () => {
    env = testEnv('revert');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'report' }, new CronTrigger('0 9 * * *', { timezone: 'Europe/Paris' }), {
      id: 'r',
      attempts: 3,
      data: { a: 1 },
    }).saved;
    await m.update('r', {
      trigger: { type: 'interval', seconds: 60 },
      attempts: 1,
      data: null,
      maxInstances: 2,
    });
    const r = await m.revert('r', { by: 'alice', via: 'api' });
    expect(r.changes.map((c) => c.field).sort()).toEqual(['attempts', 'data', 'run', 'trigger']);
    expect(r.job.def.trigger).toEqual({ type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Paris' });
    expect(r.job.def.attempts).toBe(3);
    expect(r.job.def.data).toEqual({ a: 1 });
    expect(r.job.def.run.maxInstances).toBe(1);
    const now = Date.now();
    const next = new CronTrigger('0 9 * * *', { timezone: 'Europe/Paris' }).nextFire(null, now - 5_000)!;
    expect([
      next,
      new CronTrigger('0 9 * * *', { timezone: 'Europe/Paris' }).nextFire(null, now + 5_000),
    ]).toContain(r.job.nextRunTime);
    const [entry, update, create] = await m.auditTrail('r');
    expect(entry).toMatchObject({ op: 'update', actor: 'alice', source: 'api' });
    expect(entry?.changes?.find((c) => c.field === 'trigger')).toEqual({
      field: 'trigger',
      before: { type: 'interval', seconds: 60 },
      after: { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Paris' },
    });
    expect(r.entry).toBe(update?.id);

    // twice in a row: the default undoes the last change (the revert itself), back to the interval
    const again = await m.revert('r');
    expect(again.job.def.trigger).toEqual({ type: 'interval', seconds: 60 });
    // --to the creation: its definition
    const toCreate = await m.revert('r', { to: create!.id });
    expect(toCreate.job.def.trigger).toEqual({
      type: 'cron',
      expression: '0 9 * * *',
      timezone: 'Europe/Paris',
    });
    expect(toCreate.entry).toBe(create!.id);
    // already so: nothing written
    const before = await stored('r');
    const same = await m.revert('r', { to: create!.id });
    expect(same.changes).toEqual([]);
    expect(await stored('r')).toEqual(before);
  });

  it('refuses a code schedule naming the deploy, an entry of another schedule, a bad id, an entry with no definition', async () => {
    env = testEnv('revert-refused');
    const code = env.manager({ role: 'client' });
    code.every(3600, { id: 'nightly' })(async function nightly() {});
    await code.start();
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'b' }, new IntervalTrigger(120), { id: 'b' }).saved;
    await new Promise((r) => setTimeout(r, 5)); // b's entry ids stay apart from a's (ids are Redis ms)
    await m.schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' }).saved;
    await m.update('a', { attempts: 2 });
    await m.pause('a', { note: 'hold' });
    const [pause] = await m.auditTrail('a');
    const [ofB] = await m.auditTrail('b');
    const before = { a: await stored('a'), nightly: await stored('nightly') };

    const refused = async (p: Promise<unknown>, field: string, text: RegExp) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ScheduleOptionsError);
      expect((err as ScheduleOptionsError).field).toBe(field);
      expect((err as Error).message).toMatch(text);
    };
    await refused(
      m.revert('nightly'),
      'source',
      /is defined in code: revert the code change deployed at .* \(audit entry \d+-\d+/,
    );
    await refused(m.revert('a', { to: ofB!.id }), 'to', /is not an entry of this schedule's audit trail/);
    await refused(m.revert('a', { to: 'yesterday' }), 'to', /must be an audit entry id/);
    await refused(m.revert('a', { to: pause!.id }), 'to', /is a pause: it carries no definition/);
    await refused(m.revert('b'), 'to', /no change of definition to undo/);
    expect({ a: await stored('a'), nightly: await stored('nightly') }).toEqual(before);
  });
});
