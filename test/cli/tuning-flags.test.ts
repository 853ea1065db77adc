// `--tuning knob=value` and `BULLBEAT_TUNING` on `bullbeat scheduler` and `bullbeat worker`, as real
// processes: a bad knob or value is refused (exit 2) naming where it came from and the knob, before
// Redis is asked; good ones reach the manager and the worker runtime (the flag wins over the variable,
// knob by knob), and a worker so tuned runs the occurrences a scheduler so tuned enqueues.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_TUNING_KEYS } from '../../src/queue/index.js';
import { MANAGER_TUNING_KEYS } from '../../src/scheduler/index.js';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';
import { assertBuilt, runBullbeat } from './run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from './spawn-bullbeat.js';

const JOBS = 'test/cli/fixtures/jobs.mjs';
const NO_REDIS = { REDIS_URL: 'redis://127.0.0.1:1' };
let redis: Redis;
const running: RunningBullbeat[] = [];
const used: { prefix: string; queue: string }[] = [];

beforeAll(() => {
  assertBuilt();
  redis = new Redis(REDIS_URL);
});

afterEach(() => {
  for (const p of running.splice(0)) p.kill();
});

afterAll(async () => {
  for (const { prefix, queue } of used) {
    const keys = await redis.keys(`{${prefix}}*`);
    if (keys.length) await redis.del(...keys);
    const q = new Queue(queue, { connection: REDIS });
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
  }
  await redis.quit();
});

/** The `tuning` of the CLI's one log line about it. */
function tuningLogged(output: string): Record<string, unknown> {
  const line = output.split('\n').find((l) => l.includes('tuning from the command line'));
  if (line === undefined) throw new Error(`no tuning line in:\n${output}`);
  return (JSON.parse(line) as { tuning: Record<string, unknown> }).tuning;
}

describe('--tuning and BULLBEAT_TUNING', () => {
  it.each([
    [
      ['scheduler', JOBS, '--tuning', 'claimBatch=0'],
      {},
      /^bullbeat: --tuning claimBatch: must be an integer >= 1, got 0/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'claimBatch=9000'],
      {},
      /^bullbeat: --tuning claimBatch: must be at most 4000, got 9000/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'claimLeaseMs=soon'],
      {},
      /^bullbeat: --tuning claimLeaseMs: expected a whole number, got "soon"/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'claimLeaseMs=400,claimAheadMs=200'],
      {},
      /^bullbeat: --tuning claimAheadMs: must be at most a quarter of claimLeaseMs \(400 ms\), got 200/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'commitAhead=perhaps'],
      {},
      /^bullbeat: --tuning commitAhead: expected 1\/true/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'replicaAcks=40'],
      {},
      /^bullbeat: --tuning replicaAcks\.replicas: must be an integer from 1 to 16/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'claimBatches=5'],
      {},
      /^bullbeat: --tuning claimBatches: unknown tuning knob \(known: bullbeat scheduler: claimBatch, /,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'groupPollMs=50'],
      {},
      /^bullbeat: --tuning groupPollMs: a bullbeat worker knob, not this command's/,
    ],
    [
      ['scheduler', JOBS, '--tuning', 'claimBatch'],
      {},
      /^bullbeat: --tuning: expected knob=value \(e\.g\. claimBatch=500\), got "claimBatch"/,
    ],
    [
      ['scheduler', JOBS],
      { BULLBEAT_TUNING: 'maxSleepMs=0' },
      /^bullbeat: BULLBEAT_TUNING maxSleepMs: must be an integer >= 1, got 0/,
    ],
    [
      ['scheduler', JOBS],
      { BULLBEAT_TUNING: 'maxSleepMS=5' },
      /^bullbeat: BULLBEAT_TUNING maxSleepMS: unknown tuning knob/,
    ],
    [
      ['worker', JOBS, '--tuning', 'groupPollMs=0'],
      {},
      /^bullbeat: --tuning groupPollMs: must be an integer >= 1 \(ms\), got 0/,
    ],
    [
      ['worker', JOBS, '--tuning', 'claimBatch=10'],
      {},
      /^bullbeat: --tuning claimBatch: a bullbeat scheduler knob, not this command's \(known: bullbeat worker: leaseRenewMs, /,
    ],
    [
      ['worker', JOBS],
      { BULLBEAT_TUNING: 'claimBatch=10,recordLagMs=-1' },
      /^bullbeat: BULLBEAT_TUNING recordLagMs: must be an integer >= 0 \(ms\), got -1/,
    ],
  ] as const)(
    '%s %o is refused naming the knob, exit 2, before Redis is asked',
    async (args, env, message) => {
      const run = await runBullbeat(args, { env: { ...NO_REDIS, ...env }, spawn: true });
      expect(run.stderr).toMatch(message);
      expect(run.code).toBe(2);
    },
  );

  it('the knobs reach a scheduler and a worker (the flag wins over the variable, knob by knob; each process reads its own from one variable), and the tuned pair runs occurrences', async () => {
    const d = { prefix: `cli-tune-${randomUUID()}`, queue: `cli-tune-q-${randomUUID()}` };
    used.push(d);
    const env = {
      BULLBEAT_PREFIX: d.prefix,
      TEST_QUEUE: d.queue,
      // one environment for the deployment: scheduler and worker knobs side by side
      BULLBEAT_TUNING: 'claimBatch=9,maxSleepMs=1234,groupPollMs=50,slotWaitPollMs=700',
    };
    const scheduler = spawnBullbeat(
      ['scheduler', JOBS, '--tuning', 'claimBatch=7', '--tuning', 'commitAhead=false,replicaAcks=off'],
      { env },
    );
    const worker = spawnBullbeat(
      ['worker', JOBS, '--tuning', 'recordLagMs=0', '--tuning', 'slotWaitPollMs=300'],
      {
        env,
      },
    );
    running.push(scheduler, worker);
    await scheduler.waitFor(/scheduler replica running/);
    await worker.waitFor(/worker running/);
    expect(tuningLogged(scheduler.output())).toEqual({
      claimBatch: 7,
      maxSleepMs: 1234,
      commitAhead: false,
      replicaAcks: false,
    });
    expect(tuningLogged(worker.output())).toEqual({ groupPollMs: 50, slotWaitPollMs: 300, recordLagMs: 0 });
    const ranKey = `{${d.prefix}}:bb:test:ran`;
    await waitUntil(async () => (await redis.llen(ranKey)) >= 2, 20_000);
    const ran = await redis.lrange(ranKey, 0, -1);
    expect(new Set(ran.map((r) => Number(r.split(':')[2])))).toEqual(new Set([worker.child.pid]));
    scheduler.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
    expect((await worker.exited).code).toBe(0);
  });

  it("--help names every knob of each process's tuning, and BULLBEAT_TUNING", async () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const scheduler = flat((await runBullbeat(['scheduler', '--help'])).stdout);
    for (const k of MANAGER_TUNING_KEYS) expect(scheduler).toContain(k);
    const worker = flat((await runBullbeat(['worker', '--help'])).stdout);
    for (const k of WORKER_TUNING_KEYS) expect(worker).toContain(k);
    const dev = flat((await runBullbeat(['dev', '--help'])).stdout);
    for (const k of [...MANAGER_TUNING_KEYS, ...WORKER_TUNING_KEYS]) expect(dev).toContain(k);
    expect((await runBullbeat(['--help'])).stdout).toMatch(/BULLBEAT_TUNING +knob=value/);
  });
});
