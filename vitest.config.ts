import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The test Redis: REDIS_URL, else 127.0.0.1:6379, else a private redis-server (test/setup/redis-server.ts).
    globalSetup: ['test/setup/redis-server.ts'],
    setupFiles: ['test/setup/redis-env.ts'],
  },
});
