import { describe, expect, it } from 'vitest';
import { redisOptionsFrom } from '../../src/scheduler/scheduler-helpers.js';

/** `REDIS_URL` and `connection` strings are read by ioredis's own parser, not by hand. */
describe('redis connection URLs', () => {
  it('keeps an IPv6 host in brackets, the port, the database and query options such as family', () => {
    expect(redisOptionsFrom('redis://[::1]:6390/3?family=6')).toMatchObject({
      host: '::1',
      port: 6390,
      db: 3,
      family: 6,
      maxRetriesPerRequest: null,
    });
  });

  it('reads credentials and turns on TLS for rediss://', () => {
    const o = redisOptionsFrom('rediss://user:p%40ss@cache.example:6380/0');
    expect(o).toMatchObject({
      host: 'cache.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      tls: {},
    });
  });

  it('passes options objects through, with maxRetriesPerRequest: null unless given', () => {
    expect(redisOptionsFrom({ host: 'h', port: 1 })).toEqual({
      host: 'h',
      port: 1,
      maxRetriesPerRequest: null,
    });
  });
});
