import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../../src/errors/index.js';
import { withManagerEnv } from '../../../src/scheduler/contract/manager-env.js';
import { AlertStore } from '../../../src/store/deployment/alert-store.js';
import { IntervalTrigger } from '../../../src/triggers/interval-trigger.js';
import { testEnv } from '../helpers.js';

const NOTIFIERS = 'ops=webhook:http://127.0.0.1:9/hook';

describe('expect on definitions', () => {
  let env: ReturnType<typeof testEnv>;
  afterEach(() => env.cleanup());

  it('refuses an unknown notifier at once where notifiers are configured, naming the field', () => {
    env = testEnv('expect-defs');
    const m = withManagerEnv({ ...process.env, BULLBEAT_NOTIFIERS: NOTIFIERS }, () => env.manager());
    let error: unknown;
    try {
      m.every(60, { id: 'a', expect: { startedWithin: '2s', notify: ['ops', 'pager'] } })(
        async function a() {},
      );
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ScheduleOptionsError);
    expect((error as ScheduleOptionsError).field).toBe('expect.notify[1]');
    expect((error as Error).message).toBe(
      'schedule "a": expect.notify[1]: no notifier named "pager" is configured (configured: ops)',
    );
  });

  it('a runtime schedule made elsewhere is checked against the notifiers the replicas announced', async () => {
    env = testEnv('expect-defs');
    const client = env.manager({ role: 'client' });
    await client.start();
    const target = { name: 'report' };
    const first = client.schedule(target, new IntervalTrigger(60), {
      id: 'r',
      expect: { startedWithin: '2m', notify: ['ops'] },
    });
    await expect(first.saved).rejects.toThrow(
      /expect\.notify\[0\]: no notifier named "ops" is configured \(configured: none/,
    );
    expect(await client.get('r')).toBeFalsy(); // nothing written
    await new AlertStore(env.redis, env.prefix).announceNotifiers([{ name: 'ops', kind: 'webhook' }]);
    const job = client.schedule(target, new IntervalTrigger(60), {
      id: 'r',
      expect: { startedWithin: '2m', succeededBy: '09:30', notify: ['ops'] },
    });
    await job.saved;
    expect((await client.get('r'))?.def.expect).toEqual({
      startedWithinMs: 120_000,
      succeededBy: { at: '09:30' },
      notify: ['ops'],
    });
    // an update merges into the stored expectations, and is audited with the field that changed
    await client.update('r', { expect: { startedWithin: '5m', notify: ['ops'] } });
    expect((await client.get('r'))?.def.expect).toEqual({ startedWithinMs: 300_000, notify: ['ops'] });
    const trail = await client.auditTrail('r');
    const update = trail.find((e) => e.op === 'update');
    expect(update?.changes?.map((c) => c.field)).toContain('expect');
  });

  it('refuses bad deployment defaults naming the manager option', () => {
    env = testEnv('expect-defs');
    expect(() => env.manager({ expect: { maxDuration: '10' } })).toThrow(
      /scheduler: expect\.maxDuration: must be a duration with a unit/,
    );
  });
});
