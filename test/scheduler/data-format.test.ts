// Every process that uses a deployment checks its data format at its start (the API path): a
// scheduler replica, a client manager, a worker runtime and a dashboard on a deployment whose stored
// format is newer than this release's refuse with a DataFormatError naming both versions, writing
// nothing; an empty deployment gets the key from its first writer; a deployment written before the
// format was recorded (data, no key) is format 1 and keeps its schedules.
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboard } from '../../dashboard/index.js';
import { DataFormatError } from '../../src/errors/index.js';
import { createWorker } from '../../src/queue/create-worker.js';
import { DATA_FORMAT } from '../../src/store/deployment/data-format.js';
import { keys } from '../../src/store/keys/keys.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { StandInScheduler } from '../queue/stand-in-scheduler.js';
import { testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(() => env.cleanup());

const NEWER = DATA_FORMAT + 1;

function expectRefused(err: unknown, what: string): void {
  expect(err, what).toBeInstanceOf(DataFormatError);
  const e = err as DataFormatError;
  expect([e.stored, e.known], what).toEqual([NEWER, DATA_FORMAT]);
  expect(e.message, what).toContain(`format ${NEWER}`);
  expect(e.message, what).toContain(`format ${DATA_FORMAT},`);
}

describe('the data format at a process start', () => {
  it('a newer stored format: a scheduler replica, a client, a worker and a dashboard refuse, naming both', async () => {
    env = testEnv('format-newer');
    const k = keys(env.prefix);
    await env.redis.set(k.dataFormat, String(NEWER));
    const replica = env.manager();
    replica.every(60, { id: 'tick', name: 'tick' })(() => undefined);
    expectRefused(await replica.start().catch((e: unknown) => e), 'scheduler start');
    const client = env.manager({ role: 'client' });
    expectRefused(
      await client
        .schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' })
        .saved.catch((e: unknown) => e),
      'client write',
    );
    expectRefused(await client.list().catch((e: unknown) => e), 'client read');
    const worker = new StandInScheduler(env.prefix, [env.queue]).register('job', () => undefined);
    expectRefused(await createWorker(worker).catch((e: unknown) => e), 'createWorker');
    const dash = env.manager({ role: 'client' });
    expectRefused(
      await startDashboard({ token: 't'.repeat(32), env: {}, port: 0, scheduler: dash }).catch(
        (e: unknown) => e,
      ),
      'startDashboard',
    );
    // nothing was written: only the format key the test set
    expect(await env.redis.keys(`{${env.prefix}}*`)).toEqual([k.dataFormat]);
    expect(await env.redis.get(k.dataFormat)).toBe(String(NEWER));
  });

  it('an empty deployment gets the format key from its first process; a read alone records none', async () => {
    env = testEnv('format-empty');
    const k = keys(env.prefix);
    expect(await env.manager({ role: 'client' }).list()).toEqual([]);
    expect(await env.redis.exists(k.dataFormat)).toBe(0);
    const replica = env.manager();
    replica.every(60, { id: 'tick', name: 'tick' })(() => undefined);
    await replica.start();
    expect(await env.redis.get(k.dataFormat)).toBe(String(DATA_FORMAT));
  });

  it('a deployment written before the format was recorded (no key) is format 1: it starts, keeps its schedules, and is upgraded to this release format', async () => {
    env = testEnv('format-legacy');
    const k = keys(env.prefix);
    const first = env.manager({ role: 'client' });
    await first.schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' }).saved;
    await first.close();
    // as an earlier release left it: the data, no format key
    await env.redis.del(k.dataFormat);
    const reader = env.manager({ role: 'client' });
    expect((await reader.list()).map((j) => j.id)).toEqual(['a']);
    expect(await env.redis.exists(k.dataFormat)).toBe(0);
    const replica = env.manager();
    await replica.start();
    expect(await env.redis.get(k.dataFormat)).toBe(String(DATA_FORMAT));
    expect((await replica.list()).map((j) => j.id)).toEqual(['a']);
  });
});
