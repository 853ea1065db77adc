// "Why didn't it run?": each cause staged for real (Redis, replicas, BullMQ workers), then explained.
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { whyDidntItRun } from '../../src/insight/why.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import type { RunContext } from '../../src/queue/pipeline.js';
import { internalsOf } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import type { RunRecord } from '../../src/store/forms/run-record.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import type { Trigger } from '../../src/triggers/trigger.js';
import { redisNow, silent, testEnv } from '../scheduler/helpers.js';
import { ManualTime } from '../scheduler/manual-time.js';
import { waitUntil } from '../wait-until.js';

const me = `${hostname()}:${process.pid}`;

let env: ReturnType<typeof testEnv>;
const workers: WorkerHandle[] = [];
const release: (() => void)[] = [];
let time: ManualTime | undefined;

/**
 * Redis's clock on a manual clock for this test's managers (test/scheduler/manual-time.ts): the time a
 * schedule waits while nothing claims it is moved on by the test, not slept through.
 */
async function manualTime(): Promise<ManualTime> {
  time = new ManualTime(env.redis, env.prefix);
  await time.start();
  return time;
}

afterEach(async () => {
  for (const r of release.splice(0)) r();
  await time?.stopAll();
  time = undefined;
  await Promise.all(workers.splice(0).map((w) => w.close({ graceMs: 500 })));
  await env.cleanup();
});

async function recordWhere(
  m: SchedulerManager,
  id: string,
  ok: (r: RunRecord) => boolean,
  timeoutMs = 15_000,
) {
  let found: RunRecord | undefined;
  await waitUntil(async () => {
    found = (await m.history(id)).find(ok);
    return found !== undefined;
  }, timeoutMs);
  return found as RunRecord;
}

async function worker(m: SchedulerManager) {
  const w = await createWorker(m, { logger: silent, queues: [env.queue] });
  workers.push(w);
  await w.ready();
  return w;
}

describe('schedule:why', () => {
  it('ran: the whole chain, with the claiming replica and its claim time kept on the enqueued record', async () => {
    env = testEnv('why-ran');
    const m = env.manager();
    m.every(0.5, { id: 'tick' })(async function tick() {});
    await worker(m);
    await m.start();
    const r = await recordWhere(m, 'tick', (x) => x.outcome === 'succeeded');
    expect(r).toMatchObject({ replica: me, worker: me });
    expect(r.claimedAt).toBeGreaterThan(r.fireAt - 1000);
    const why = await whyDidntItRun(m, 'tick', { at: r.fireAt });
    expect(why).toMatchObject({ ran: true, cause: null, fireAt: r.fireAt });
    expect(why.facts.map((f) => f.link)).toEqual(['trigger', 'claim', 'enqueue', 'worker', 'outcome']);
    expect(why.facts[1]?.text).toContain(`claimed by ${me}`);
    expect(why.facts[2]?.text).toContain(`job ${r.jobId}`);
    expect(why.facts[3]?.text).toContain(`picked by ${me}`);
  });

  it('paused: a paused schedule', async () => {
    env = testEnv('why-paused');
    const time = await manualTime();
    const m = env.manager({ role: 'client' });
    time.attach(m);
    m.every(1, { id: 'p', name: 'p' })(async () => {});
    await m.start();
    await m.pause('p', { note: 'vendor outage', by: 'ada' });
    await time.advance(1100);
    const why = await whyDidntItRun(m, 'p');
    expect(why.cause).toBe('paused');
    expect(why.summary).toContain('paused');
    // the pause note says who and why
    expect(why.facts.at(-1)?.text).toMatch(/^paused; paused by ada at .+: vendor outage$/);
  });

  it('no scheduler replica alive: due and never claimed', async () => {
    env = testEnv('why-noreplica');
    const time = await manualTime();
    const m = env.manager({ role: 'client' });
    time.attach(m);
    m.every(1, { id: 'n', name: 'n' })(async () => {});
    await m.start();
    await time.advance(2600);
    const why = await whyDidntItRun(m, 'n');
    expect(why.cause).toBe('no-replica');
    expect(why.summary).toMatch(/^no scheduler replica alive at /);
  });

  it('claimed, the replica died, then the take-over: said while it lapses, and kept on the record after', async () => {
    env = testEnv('why-died');
    const time = await manualTime();
    const dying = env.manager({ claimLeaseMs: 800 });
    time.attach(dying);
    dying.every(1, { id: 'd', name: 'd' })(async () => {});
    let stalled = false;
    dying.hooks = {
      ...dying.hooks,
      afterClaim: () => {
        stalled = true;
        // stalls like a dead process, time still movable past it (ManualTime.hold)
        return time.hold(dying, new Promise<void>((resolve) => release.push(resolve)));
      },
    };
    await dying.start();
    await time.advanceUntil(() => stalled, 5000);
    void dying.stop(); // claims no more; its claim stays stalled until the end of the test: dead
    await time.advance(1000); // its lease lapses
    const why = await whyDidntItRun(dying, 'd');
    expect(why.cause).toBe('replica-died');
    // the occurrence asked about is the claimed one, or (a moment later) the next, waiting behind it
    expect(why.summary).toMatch(
      new RegExp(
        `^claimed (its earlier occurrence \\S+ \\(later ones wait behind it\\) )?by ${me}, which died`,
      ),
    );
    const survivor = env.manager({ claimLeaseMs: 800 });
    time.attach(survivor);
    survivor.every(1, { id: 'd', name: 'd' })(async () => {});
    await worker(survivor);
    await survivor.start();
    let r: RunRecord | undefined;
    await time.advanceUntil(async () => {
      r = (await survivor.history('d')).find((x) => x.reclaimed === true && x.outcome === 'succeeded');
      return r !== undefined;
    }, 15_000);
    const after = await whyDidntItRun(survivor, 'd', { at: r!.fireAt });
    expect(after.ran).toBe(true);
    expect(after.facts.find((f) => f.link === 'claim')?.text).toMatch(/that replica died .* took it over at/);
  });

  it('missed by the misfire policy, and coalesced, while no replica was alive', async () => {
    env = testEnv('why-misfire');
    const client = env.manager({ role: 'client' });
    client.every(0.5, { id: 'skip', name: 'skip', misfire: 'skip', misfireGraceMs: 100 })(async () => {});
    client.every(0.5, { id: 'once', name: 'once', misfire: 'once', misfireGraceMs: 100 })(async () => {});
    await client.start();
    const m = env.manager();
    m.every(0.5, { id: 'skip', name: 'skip', misfire: 'skip', misfireGraceMs: 100 })(async () => {});
    m.every(0.5, { id: 'once', name: 'once', misfire: 'once', misfireGraceMs: 100 })(async () => {});
    // no replica for 2.2 s: several occurrences pass. The replica that comes then is started now, its
    // claims judging by a clock 2.2 s ahead of Redis's (driven), rather than the test sleeping
    const offset = (await redisNow(env.redis)) - Date.now();
    setScriptClock(internalsOf(m).redis, () => Date.now() + offset + 2200);
    await m.start();
    const missed = await recordWhere(m, 'skip', (x) => x.outcome === 'missed');
    const why = await whyDidntItRun(m, 'skip', { at: missed.fireAt });
    expect(why.cause).toBe('misfire');
    expect(why.summary).toContain('misfire: skip');
    expect(why.summary).toContain(`no scheduler replica alive at ${new Date(missed.fireAt).toISOString()}`);
    const early = await recordWhere(m, 'once', (x) => x.outcome === 'missed');
    await recordWhere(m, 'once', (x) => x.kind === 'catch-up' && (x.coalesced ?? 0) > 1);
    const coalesced = await whyDidntItRun(m, 'once', { at: early.fireAt });
    expect(coalesced.cause).toBe('coalesced');
    expect(coalesced.summary).toMatch(/^coalesced into the catch-up run of /);
  });

  it('skipped for overlap with the run that held the slot', async () => {
    env = testEnv('why-overlap');
    const m = env.manager();
    // the first run holds the slot until the test ends (afterEach releases it)
    const held = new Promise<void>((resolve) => release.push(resolve));
    m.every(0.3, { id: 'slow', maxInstances: 1 })(async function slow(ctx: RunContext) {
      await held;
      return ctx.fireAt;
    });
    await worker(m);
    await m.start();
    const skipped = await recordWhere(m, 'slow', (x) => x.outcome === 'skipped');
    const why = await whyDidntItRun(m, 'slow', { at: skipped.fireAt });
    expect(why.cause).toBe('overlap');
    expect(why.summary).toMatch(/^skipped for overlap with run \S+ \(job bb-slow-\d+ on /);
  });

  it('errored schedule: its trigger broke', async () => {
    env = testEnv('why-errored');
    const m = env.manager();
    const broken: Trigger = {
      nextFire(last, now) {
        if (last !== null) throw new Error('the upstream calendar is gone');
        return now - (now % 500) + 500;
      },
    };
    m.schedule(async function brk() {}, broken, { id: 'brk' });
    await m.start();
    await waitUntil(async () => (await m.get('brk'))?.status === 'errored', 10_000);
    const why = await whyDidntItRun(m, 'brk');
    expect(why.cause).toBe('errored');
    expect(why.summary).toContain('the upstream calendar is gone');
  });

  it('no worker serving the queue, and no handler for the job name', async () => {
    env = testEnv('why-noworker');
    const m = env.manager();
    m.schedule({ queue: env.queue, name: 'orphan-job' }, new IntervalTrigger(0.5), { id: 'nw' });
    await m.start();
    const r = await recordWhere(m, 'nw', (x) => x.outcome === 'enqueued');
    const why = await whyDidntItRun(m, 'nw', { at: r.fireAt });
    expect(why.cause).toBe('no-worker');
    expect(why.summary).toContain(
      `no worker serving queue ${env.queue} with a handler for job name "orphan-job"`,
    );
    // a worker that serves the queue but has no handler of that name
    const other = env.manager({ role: 'client' });
    other.every(3600, { id: 'unrelated', name: 'unrelated' })(async () => {});
    await worker(other);
    const failed = await recordWhere(m, 'nw', (x) => x.outcome === 'failed');
    const nohandler = await whyDidntItRun(m, 'nw', { at: failed.fireAt });
    expect(nohandler.cause).toBe('no-handler');
    expect(nohandler.summary).toContain('has a handler for job name "orphan-job"');
  });
});
