import { describe, expect, it } from 'vitest';
import { writeBadRows } from '../scheduler/bad-rows.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, env, redis } = cliTestBed('poison');

describe('schedule:add and schedule:list against out-of-range numbers', () => {
  it('schedule:add --every 10000000000000 (seconds) is refused as a usage error, saying the bounds, and stores nothing', async () => {
    const run = await runBullbeat(['schedule:add', '--name', 'huge', '--every', '10000000000000'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('out of range');
    expect(run.stderr).toContain('100 years');
    expect(await redis.hlen(`{${prefix}}:bb:schedules`)).toBe(0);
    expect(await redis.hlen(`{${prefix}}:bb:state`)).toBe(0);
  });

  it('schedule:add --at 1e20 is refused the same way', async () => {
    const run = await runBullbeat(['schedule:add', '--name', 'far', '--at', '100000000000000000000'], {
      env,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('out of range');
    expect(await redis.hlen(`{${prefix}}:bb:schedules`)).toBe(0);
  });

  it('schedule:list survives bad stored rows: exit 0, each shown as errored with its reason', async () => {
    const add = await runBullbeat(['schedule:add', '--name', 'good', '--every', '60'], { env });
    expect(add.code).toBe(0);
    await writeBadRows(redis, prefix, 'good');
    const table = await runBullbeat(['schedule:list'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/not-json .*errored/);
    expect(table.stdout).toMatch(/date-1e20 .*errored/);
    expect(table.stdout).toContain('out of range');
    const json = await runBullbeat(['schedule:list', '--json'], { env });
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as {
      id: string;
      status: string;
      error: { reason: string } | null;
    }[];
    expect(rows.find((r) => r.id === 'good')?.status).toBe('active');
    expect(rows.find((r) => r.id === 'every-1e13')?.status).toBe('errored');
    expect(rows.find((r) => r.id === 'every-1e13')?.error?.reason).toContain('out of range');
  });
});
