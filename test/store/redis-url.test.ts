import { describe, expect, it } from 'vitest';
import { redisTarget } from '../../src/store/connection/redis-target.js';

/** `REDIS_URL` and `connection` strings are read in one place, by ioredis's own parser, not by hand. */
describe('redis connection URLs', () => {
  it('keeps an IPv6 host in brackets, the port, the database and query options such as family', () => {
    expect(redisTarget('redis://[::1]:6390/3?family=6')).toMatchObject({
      host: '::1',
      port: 6390,
      db: 3,
      family: 6,
      maxRetriesPerRequest: null,
    });
  });

  it('reads credentials and turns on TLS for rediss://', () => {
    const o = redisTarget('rediss://user:p%40ss@cache.example:6380/0');
    expect(o).toMatchObject({
      host: 'cache.example',
      port: 6380,
      username: 'user',
      password: 'p@ss',
      tls: {},
    });
  });

  it('passes options objects through, with maxRetriesPerRequest: null unless given', () => {
    expect(redisTarget({ host: 'h', port: 1 })).toEqual({
      host: 'h',
      port: 1,
      maxRetriesPerRequest: null,
    });
  });
});
