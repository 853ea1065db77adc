// The one place tests take Redis from: the URL chosen by test/setup/redis-server.ts (REDIS_URL, else
// 127.0.0.1:6379, else a private redis-server), exported as a URL and as ioredis options.

const url = process.env.REDIS_URL;
if (!url) throw new Error('test/redis-url.ts: REDIS_URL is not set (run the tests through vitest: npm test)');

/** The test Redis, e.g. `redis://127.0.0.1:6379`. */
export const REDIS_URL: string = url;

const parsed = new URL(REDIS_URL);

/** The test Redis as ioredis/BullMQ connection options (`maxRetriesPerRequest: null`, as BullMQ wants). */
export const REDIS = {
  host: parsed.hostname,
  port: Number(parsed.port || 6379),
  ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
  ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
  ...(parsed.pathname.length > 1 && { db: Number(parsed.pathname.slice(1)) }),
  maxRetriesPerRequest: null,
} as const;
