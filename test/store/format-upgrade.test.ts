// The format upgrade path with the real steps, across real processes: this release writes format 3 and
// ships the steps from format 1 (`FORMAT_UPGRADES[1]`: an idle schedule's audit trail, its one `create`,
// moves into its partition's first-entry hash) and from format 2 (`FORMAT_UPGRADES[2]`: the index of
// every schedule by name goes, the queue indexes being the name order's only one), which the processes
// started here run through the test seam (`setDataFormatRules`, fixtures/format-upgrader.ts) so that the
// test counts the first one's runs. On a deployment written as format 1 wrote it (every trail a stream),
// three processes starting together run the step once (one takes the step's lease, the others wait for
// the format to move; the move is `set-format-1`'s compare-and-set), then the next, and all start at
// format 3; every trail reads the same before and after, the one-entry ones moved; the step run again
// changes nothing; a process of format 1 then refuses the deployment with a `DataFormatError` naming
// both formats. (format-3-upgrade.test.ts runs the step from format 2 over format 2's indexes.)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFormatError } from '../../src/errors/index.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { DATA_FORMAT, FORMAT_UPGRADES, setDataFormatRules } from '../../src/store/deployment/data-format.js';
import { keys } from '../../src/store/keys/keys.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { REDIS_URL } from '../redis-url.js';
import { silent } from '../scheduler/helpers.js';

const UPGRADER = 'test/store/fixtures/format-upgrader.ts';

/** Run the upgrader in `n` processes; resolves with each one's output and exit code. */
function upgraders(n: number, prefix: string, mark: string) {
  return Array.from(
    { length: n },
    () =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', UPGRADER, REDIS_URL, prefix, mark, String(n)],
          { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'silent' } },
        );
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on('data', (d: Buffer) => {
          out += d.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      }),
  );
}

describe('a format upgrade step, across processes', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('runs the real step once across 3 processes starting together; trails read the same; a process of the older format then refuses', async () => {
    // what ships: format 3, and its steps from formats 1 and 2
    expect(DATA_FORMAT).toBe(3);
    expect(Object.keys(FORMAT_UPGRADES)).toEqual(['1', '2']);
    const prefix = `fmt-up-${randomUUID().slice(0, 8)}`;
    const mark = `{${prefix}}:test:upgrade`;
    const k = keys(prefix);
    const redis = new Redis(REDIS_URL);
    cleanups.push(async () => {
      const found = await redis.keys(`{${prefix}}*`);
      if (found.length > 0) await redis.del(...found);
      await redis.quit();
    });
    // a deployment as format 1 left it: schedules, and every trail a stream (includes/audit of format 1:
    // XADD MAXLEN, the create's `after` the definition)
    const before = new SchedulerManager({
      prefix,
      connection: REDIS_URL,
      role: 'client',
      logger: silent,
      auditLimit: 0,
    });
    for (const id of ['idle1', 'idle2', 'busy']) {
      await before.schedule({ name: id, queue: 'q' }, new IntervalTrigger(60), { id }).saved;
    }
    await before.close();
    const xadd = (id: string, ...fields: string[]) =>
      redis.xadd(k.audit(id), 'MAXLEN', '100', '*', ...fields) as Promise<string>;
    for (const id of ['idle1', 'idle2', 'busy']) {
      const def = (await redis.hget(k.schedules, id)) as string;
      await xadd(id, 'op', 'create', 'actor', 'ann@box:1', 'source', 'cli', 'after', def);
    }
    await xadd('busy', 'op', 'pause', 'actor', 'bob', 'source', 'api', 'note', 'n');
    // a removed schedule's trail, kept for its retention
    await xadd(
      'gone',
      'op',
      'create',
      'actor',
      'code',
      'source',
      'code',
      'after',
      '{"name":"gone","queue":"q"}',
    );
    await xadd(
      'gone',
      'op',
      'remove',
      'actor',
      'code',
      'source',
      'code',
      'before',
      '{"name":"gone","queue":"q"}',
    );
    await redis.pexpire(k.audit('gone'), 600_000);
    await redis.set(k.dataFormat, '1');
    const ids = ['idle1', 'idle2', 'busy', 'gone'];
    const reader = new SchedulerManager({ prefix, connection: REDIS_URL, role: 'client', logger: silent });
    cleanups.push(() => reader.close());
    const trails = async () => Promise.all(ids.map((id) => reader.auditTrail(id)));
    const old = await trails();
    expect(old.map((t) => t.map((e) => e.op))).toEqual([
      ['create'],
      ['create'],
      ['pause', 'create'],
      ['remove', 'create'],
    ]);
    expect(await redis.get(k.dataFormat)).toBe('1'); // a read upgrades nothing

    const done = upgraders(3, prefix, mark);
    // every process connected and waiting at the barrier: let them go at once
    const barrier = redis.duplicate();
    for (let i = 0; i < 3; i++) await barrier.blpop(`${mark}:ready`, 60);
    await barrier.quit();
    await redis.rpush(`${mark}:go`, 'go', 'go', 'go');
    const results = await Promise.all(done);
    for (const r of results) {
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('format 3');
    }
    // the step ran in one process only, and the format moved once per step, to 3
    expect(await redis.lrange(`${mark}:runs`, 0, -1)).toHaveLength(1);
    expect(await redis.get(k.dataFormat)).toBe('3');
    // no lease left behind
    expect(await redis.exists(`${k.dataFormat}:upgrade:1`, `${k.dataFormat}:upgrade:2`)).toBe(0);
    // the one-entry trails moved out of their streams; the others kept as they were, expiry included
    expect(await redis.exists(k.audit('idle1'), k.audit('idle2'))).toBe(0);
    expect(await redis.hget(k.auditFirst('idle1'), 'idle1')).toMatch(/^[0-9a-z]+\|lann@box:1$/);
    expect(await redis.xlen(k.audit('busy'))).toBe(2);
    expect(await redis.pttl(k.audit('gone'))).toBeGreaterThan(500_000);
    // every trail reads as before: ids, times, who, what, the definition created
    expect(await trails()).toEqual(old);
    // the step again (another process whose lease lapsed): nothing changes
    const snapshot = async () =>
      Promise.all(ids.flatMap((id) => [redis.hget(k.auditFirst(id), id), redis.exists(k.audit(id))]));
    const once = await snapshot();
    await FORMAT_UPGRADES[1]?.(redis, k);
    expect(await snapshot()).toEqual(once);
    expect(await trails()).toEqual(old);

    // a process of a release of format 1 meets format 3: it refuses, naming both
    setDataFormatRules({ known: 1, upgrades: {} });
    try {
      const older = new SchedulerManager({ prefix, connection: REDIS_URL, role: 'client', logger: silent });
      cleanups.push(() => older.close());
      const err = (await older.start().catch((e: unknown) => e)) as DataFormatError;
      expect(err).toBeInstanceOf(DataFormatError);
      expect(err.stored).toBe(3);
      expect(err.known).toBe(1);
      expect(err.message).toMatch(/format 3 .*newer than format 1/s);
    } finally {
      setDataFormatRules(undefined);
    }
    expect(await redis.get(k.dataFormat)).toBe('3');
  });
});
