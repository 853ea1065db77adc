// The outcome follower (a plain BullMQ Worker's runs recorded from the queue's events) reads and writes
// behind the burst: while jobs wait on the queue its reads and writes are held back, for at most
// FOLLOWER_HOLD_MS after a read was due, so a record lags its job's end by about that however long the
// queue stays busy, and the follower writes about once per FOLLOWER_HOLD_MS rather than once per
// gathered read. Its hold runs on a manual clock that the test moves faster than real time.
import { createHash } from 'node:crypto';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveForeignOutcomesOptions } from '../../src/scheduler/contract/foreign-outcomes-options.js';
import { FOLLOWER_HOLD_MS, ForeignOutcomes } from '../../src/scheduler/outcomes/foreign-outcomes.js';
import { redisTarget } from '../../src/store/connection/redis-target.js';
import { keys } from '../../src/store/keys/keys.js';
import { storeScripts } from '../../src/store/scripts/scripts.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { ManualClock } from '../queue/manual-clock.js';
import { waitUntil } from '../wait-until.js';
import { REDIS_URL, silent, testEnv } from './helpers.js';

const connection = { url: REDIS_URL, maxRetriesPerRequest: null };
let env: ReturnType<typeof testEnv> | undefined;
const closing: { close(): Promise<unknown> }[] = [];

afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close();
  await env?.cleanup();
  env = undefined;
});

describe('the outcome follower writes behind the burst', () => {
  it('while jobs wait on the queue, it writes about once per FOLLOWER_HOLD_MS, and records every outcome', async () => {
    env = testEnv('follower-hold');
    // the manager's own follower off: the one under test is alone in writing the outcomes
    const m = env.manager({ foreignOutcomes: false });
    // 20 schedules every 250 ms, one job at a time at 25 ms each: 2 s of work a second, so jobs
    // wait on the queue all along (the backlog grows: backpressure is off in these tests), and a job
    // ends every 25 ms or so; once the window is over, the jobs left take no time
    let jobMs = 25;
    const worker = new Worker(env.queue, async (_job: Job) => new Promise((r) => setTimeout(r, jobMs)), {
      connection,
      concurrency: 1,
    });
    worker.on('error', () => {});
    closing.push(worker);
    for (let i = 0; i < 20; i++) {
      m.schedule({ queue: env.queue, name: 'tick' }, new IntervalTrigger(0.25), { id: `s${i}` });
    }
    await m.start();

    const clock = new ManualClock(Date.now());
    // the follower on a client of its own, its calls of the outcome write script counted; a gathered
    // read every 25 ms; its clock moved 50 ms every 10 ms (real) or more, about four times real time
    const redis = new Redis(REDIS_URL);
    const write = storeScripts().find((s) => s.name === 'foreign-outcomes')!.lua;
    const writeSha = createHash('sha1').update(write).digest('hex');
    const read = storeScripts().find((s) => s.name === 'finished-jobs')!.lua;
    const readSha = createHash('sha1').update(read).digest('hex');
    let writes = 0;
    let reads = 0;
    // its script calls counted, on its client and on the duplicate its events' reader gets
    const counted = (client: Redis): Redis => {
      const send = client.sendCommand.bind(client);
      client.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
        const script = command.name === 'evalsha' || command.name === 'eval' ? command.args[0] : '';
        if (script === writeSha || script === write) writes++;
        if (script === readSha || script === read) reads++;
        return (send as (...a: unknown[]) => unknown)(command, ...rest);
      }) as typeof client.sendCommand;
      return client;
    };
    counted(redis);
    const duplicate = redis.duplicate.bind(redis);
    redis.duplicate = ((...a: Parameters<Redis['duplicate']>) =>
      counted(duplicate(...a))) as Redis['duplicate'];
    const follower = new ForeignOutcomes({
      redis,
      keys: keys(env.prefix),
      prefix: env.prefix,
      historyLimit: 100,
      logger: silent,
      options: resolveForeignOutcomesOptions({ reconcileIntervalMs: 3_600_000, gatherMs: 25 }),
      connection: redisTarget(REDIS_URL),
      clock,
    });
    let ticking = true;
    const ticker = (async () => {
      while (ticking) {
        await clock.advance(50);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // closed in reverse: the follower before its clock stops (a held batch waits on it)
    closing.push(
      {
        close: () => {
          ticking = false;
          return ticker;
        },
      },
      { close: () => redis.quit() },
      { close: () => follower.stop() },
    );
    await follower.watch(env.queue);
    await waitUntil(async () => (await redis.llen(`bull:${env!.queue}:wait`)) > 0, 20_000, {
      what: 'jobs waiting on the queue',
    });

    // a window of at least 2.5 s of the follower's clock (about 0.6 s real) during which jobs waited
    // all along (checked every 20 ms)
    const writesBefore = writes;
    const readsBefore = reads;
    const started = clock.now();
    let alwaysWaiting = true;
    while (clock.now() - started < 2500) {
      if ((await redis.llen(`bull:${env.queue}:wait`)) === 0) alwaysWaiting = false;
      await new Promise((r) => setTimeout(r, 20));
    }
    const windowMs = clock.now() - started;
    const written = writes - writesBefore;
    const readCalls = reads - readsBefore;
    expect(alwaysWaiting).toBe(true);
    // held: one batch per FOLLOWER_HOLD_MS of its clock (and one more at each edge); a gathered read
    // every gatherMs (25 ms, real time) with a job's end in each would write ~25 times in the window
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThanOrEqual(Math.ceil(windowMs / FOLLOWER_HOLD_MS) + 2);
    // and so are its reads of the events (each reads the finished jobs' fields): the first after the hold
    expect(readCalls).toBeGreaterThan(0);
    expect(readCalls).toBeLessThanOrEqual(Math.ceil(windowMs / FOLLOWER_HOLD_MS) + 2);

    // every outcome is recorded in the end, the queue still busy or not
    jobMs = 0;
    await m.stop();
    await waitUntil(
      async () => {
        for (let i = 0; i < 20; i++) {
          const open = (await m.history(`s${i}`)).filter((r) => r.outcome === 'enqueued');
          for (const r of open) {
            if ((await env!.redis.hget(`bull:${env!.queue}:${r.jobId}`, 'finishedOn')) !== null) return false;
          }
        }
        return true;
      },
      20_000,
      { what: 'every finished job recorded' },
    );
  }, 90_000);
});
