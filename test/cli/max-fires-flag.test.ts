// `bullbeat scheduler --max-fires-per-second`: a value that is not a whole number >= 0 is refused
// (exit 2) naming the flag, before anything starts (Redis not even asked).
import { describe, expect, it } from 'vitest';
import { runBullbeat } from './run-bullbeat.js';

describe('scheduler --max-fires-per-second', () => {
  it.each(['-1', '2.5', 'lots'])('refuses %s naming the flag', async (value) => {
    const run = await runBullbeat(['scheduler', '--max-fires-per-second', value], {
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
      spawn: false,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: --max-fires-per-second: /);
  });
});
