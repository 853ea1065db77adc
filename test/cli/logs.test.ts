// Log lines: no key twice in one JSON line; the pretty (dev) output summarises routine runs and keeps errors loud.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { assertBuilt } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

const prefix = `cli-logs-${randomUUID().slice(0, 8)}`;
const queue = `cli-logs-q-${randomUUID().slice(0, 8)}`;
const fixture = 'test/cli/fixtures/jobs-logging.mjs';
let redis: Redis;

/** The top-level keys of one JSON object text, in order, duplicates kept (JSON.parse would hide them). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (depth === 1 && /^\s*:/.test(line.slice(j + 1))) keys.push(line.slice(i + 1, j));
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

beforeAll(() => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  for (const pattern of [`{${prefix}}*`, `bull:${queue}*`]) {
    const keys = await redis.keys(pattern);
    if (keys.length) await redis.del(...keys);
  }
  await redis.quit();
});

describe('logs', () => {
  it('bullbeat dev, JSON: no key appears twice in a line (role; the README handler logging fireAt)', async () => {
    const dev = spawnBullbeat(['dev', fixture, '--no-dashboard'], {
      env: { BULLBEAT_PREFIX: prefix, TEST_QUEUE: queue, LOG_FORMAT: 'json' },
    });
    try {
      await dev.waitFor(/building the report[\s\S]*building the report/, 30_000);
      await dev.waitFor(/upstream answered 503/, 30_000);
    } finally {
      dev.child.kill('SIGTERM');
      await dev.exited;
    }
    const lines = dev
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      const keys = topLevelKeys(line);
      expect(keys, line).toEqual([...new Set(keys)]);
    }
    const report = lines.find((l) => l.includes('building the report')) as string;
    expect(JSON.parse(report)).toMatchObject({ role: 'dev', scheduleId: 'chatty' });
  });

  it('bullbeat dev, pretty: routine runs are summarised, failures printed in full', async () => {
    const dev = spawnBullbeat(['dev', fixture, '--no-dashboard'], {
      env: {
        BULLBEAT_PREFIX: prefix,
        TEST_QUEUE: queue,
        LOG_FORMAT: 'pretty',
        BULLBEAT_LOG_SUMMARY_MS: '1500',
      },
    });
    try {
      await dev.waitFor(/routine/, 30_000);
      await dev.waitFor(/upstream answered 503[\s\S]*upstream answered 503/, 30_000);
      await new Promise((r) => setTimeout(r, 1600));
    } finally {
      dev.child.kill('SIGTERM');
      await dev.exited;
    }
    const out = dev.output();
    // the first line of each kind is shown as is; the rest are counted in a summary line
    expect(out.match(/building the report/g)?.length).toBe(
      1 + (out.match(/routine, .*chatty/g)?.length ?? 0),
    );
    expect(out).toMatch(/routine, last \d+(\.\d)? s: chatty ×\d+/);
    // every failure, in full, every time
    expect(out.match(/WARN.*run failed/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(out.match(/upstream answered 503/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    // the jobs module's manager logs through the CLI's pretty logger too, its start and stop included
    expect(out).toMatch(/^\[[\d:.]+\] INFO.*bullbeat: scheduler started/m);
    expect(out).toMatch(/^\[[\d:.]+\] INFO.*bullbeat: scheduler stopped/m);
    expect(out.split('\n').filter((line) => line.trimStart().startsWith('{"'))).toEqual([]);
  });
});
