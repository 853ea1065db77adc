// sendScript: a store script sent as EVALSHA with its arguments as given (not copied by ioredis's
// `flat()`), EVAL when Redis does not know it. On a private redis-server: the test flushes its scripts.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCommandTimeout } from '../../src/store/connection/command-timeout.js';
import { luaScript, sendScript } from '../../src/store/connection/send-script.js';
import { startRedisServer } from '../setup/redis-server.js';

type Server = Awaited<ReturnType<typeof startRedisServer>>;
let server: Server;
let redis: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  redis = withCommandTimeout(new Redis(server.url, { maxRetriesPerRequest: null }), 5000);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

// the keys and arguments as the script sees them, and a write, to see that it ran once
const ECHO = luaScript(`
redis.call('INCR', KEYS[1])
return {KEYS, ARGV}`);

describe('sendScript', () => {
  it('runs a script Redis does not know (EVAL), then by its SHA; numbers and buffers arrive as strings', async () => {
    await redis.script('FLUSH');
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((c: Parameters<Redis['sendCommand']>[0]) => {
      if (c.name.startsWith('eval')) sent.push(c.name);
      return send(c);
    }) as Redis['sendCommand'];
    try {
      const args = [2, 'k:a', 'k:b', 'x', 42, Buffer.from('buf'), ''];
      expect(await sendScript(redis, ECHO, args)).toEqual([
        ['k:a', 'k:b'],
        ['x', '42', 'buf', ''],
      ]);
      expect(sent).toEqual(['evalsha', 'eval']);
      expect(await redis.script('EXISTS', ECHO.sha)).toEqual([1]);
      await sendScript(redis, ECHO, args);
      expect(sent).toEqual(['evalsha', 'eval', 'evalsha']);
      expect(await redis.get('k:a')).toBe('2'); // the NOSCRIPT answer ran nothing
      expect(args).toEqual([2, 'k:a', 'k:b', 'x', 42, Buffer.from('buf'), '']); // the caller's, untouched
    } finally {
      redis.sendCommand = send;
    }
  });

  it("answers a script's error as it is, never sent again as EVAL", async () => {
    const failing = luaScript(
      `redis.call('INCR', KEYS[1]); return redis.error_reply('ERR bullbeat test: no')`,
    );
    await expect(sendScript(redis, failing, [1, 'k:err'])).rejects.toThrow('bullbeat test: no');
    expect(await redis.get('k:err')).toBe('1');
  });

  it('carries a call of 20,000 arguments, in order', async () => {
    const count = luaScript('return {#ARGV, ARGV[1], ARGV[#ARGV]}');
    const args: (string | number)[] = [0];
    for (let i = 0; i < 20_000; i++) args.push(i % 2 ? `v${i}` : i);
    expect(await sendScript(redis, count, args)).toEqual([20_000, '0', 'v19999']);
  });
});
