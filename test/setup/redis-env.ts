// vitest setupFiles: before each test file, REDIS_URL is the Redis that the global setup chose, so
// that test/redis-url.ts, the managers' default connection and spawned children all agree.
import { inject } from 'vitest';

process.env.REDIS_URL = inject('redisUrl');
