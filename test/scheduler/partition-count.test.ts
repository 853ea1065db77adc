// Every use of a manager checks the deployment's recorded partition count before it touches a
// schedule: a client with another count (a CLI, a dashboard, an app that only adds schedules) would
// write them where the scheduler never looks, or read nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { keys } from '../../src/store/keys/keys.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { testEnv } from './helpers.js';

let env: ReturnType<typeof testEnv>;
afterEach(() => env.cleanup());

/** Every key under the prefix and its partitions' tags. */
async function keysOf(prefix: string): Promise<string[]> {
  return (await env.redis.keys(`{${prefix}*`)).sort();
}

describe('the partition count of a manager', () => {
  it('a client manager with another count refuses every use (writes and reads), writing nothing', async () => {
    env = testEnv('partitions-client');
    await env.redis.set(keys(env.prefix).partitionCount, '1');
    const m = env.manager({ role: 'client', partitions: 4 });
    const uses: [string, () => Promise<unknown>][] = [
      ['schedule', () => m.schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' }).saved],
      ['list', () => m.list()],
      ['get', () => m.get('a')],
      ['remove', () => m.remove('a')],
      ['pause', () => m.pause('a')],
      ['triggerNow', () => m.triggerNow('a')],
      ['stats', () => m.stats()],
    ];
    for (const [what, use] of uses) {
      const err = (await use().catch((e: unknown) => e)) as ConfigError;
      expect(err, what).toBeInstanceOf(ConfigError);
      expect(err.setting, what).toBe('BULLBEAT_PARTITIONS');
      expect(err.message, what).toMatch(/\b1 partition/);
      expect(err.message, what).toMatch(/\b4\b/);
    }
    expect(await keysOf(env.prefix)).toEqual([keys(env.prefix).partitionCount]);
  });

  it('a scheduler replica with another count refuses to start with a ConfigError', async () => {
    env = testEnv('partitions-replica');
    const first = env.manager({ role: 'client', partitions: 2 });
    await first.schedule({ name: 'a' }, new IntervalTrigger(60), { id: 'a' }).saved;
    expect(await env.redis.get(keys(env.prefix).partitionCount)).toBe('2');
    const replica = env.manager({ partitions: 3 });
    const err = (await replica.start().catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/\b2 partitions/);
    expect(err.message).toMatch(/\b3\b/);
  });

  it('reads of a deployment not recorded yet record nothing (a mistyped prefix leaves no key)', async () => {
    env = testEnv('partitions-read');
    const m = env.manager({ role: 'client' });
    expect(await m.list()).toEqual([]);
    expect(await m.get('nope')).toBeUndefined();
    expect(await keysOf(env.prefix)).toEqual([]);
  });
});
