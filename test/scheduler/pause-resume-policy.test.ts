import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { createWorker, type WorkerHandle } from '../../src/queue/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { keys } from '../../src/store/keys/keys.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { redisNow, silent, testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

describe('pause with a note, resume with a policy', () => {
  let env: ReturnType<typeof testEnv>;
  let worker: WorkerHandle | undefined;
  let time: ManualTime | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await time?.stopAll();
    time = undefined;
    await env.cleanup();
  });

  const notes = () => keys(env.prefix).pauseNotes;

  /**
   * A client manager on a manual clock (manual-time.ts): the time that passes while a schedule is
   * paused is Redis's clock, as its scripts read it, moved on by the test, not waited for.
   */
  async function onManualTime(tag: string) {
    env = testEnv(tag);
    const t = new ManualTime(env.redis, env.prefix);
    time = t;
    await t.start();
    const m = env.manager({ role: 'client' });
    t.attach(m);
    return { m, time: t };
  }

  it('a note says why, who and when until resume; list() and get() show it; remove drops it', async () => {
    env = testEnv('pause-note');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'n' }, new IntervalTrigger(60), { id: 'n' }).saved;
    const before = await redisNow(env.redis);
    expect(await m.pause('n', { note: 'upstream API down, INC-42', by: 'ada' })).toBe(true);
    const job = (await m.get('n'))!;
    expect(job.status).toBe('paused');
    expect(job.pauseNote).toMatchObject({ note: 'upstream API down, INC-42', by: 'ada' });
    expect(job.pauseNote!.at).toBeGreaterThanOrEqual(before);
    expect((await m.list())[0]!.toJSON().pauseNote?.note).toBe('upstream API down, INC-42');
    // a closed manager connects again on its next use, notes included
    await m.close();
    expect((await m.get('n'))!.pauseNote?.note).toBe('upstream API down, INC-42');
    // a second pause is a no-op and keeps the note
    expect(await m.pause('n', { note: 'other' })).toBe(false);
    expect((await m.get('n'))!.pauseNote?.note).toBe('upstream API down, INC-42');
    expect(await m.resume('n')).toBe(true);
    expect((await m.get('n'))!.pauseNote).toBeNull();
    expect(await env.redis.hexists(notes(), 'n')).toBe(0);
    // without a note: who and when are still kept
    await m.pause('n');
    expect((await m.get('n'))!.pauseNote).toMatchObject({ note: '', by: expect.stringMatching(/:\d+$/) });
    expect(await m.remove('n')).toBe(true);
    expect(await env.redis.hexists(notes(), 'n')).toBe(0);
  });

  it('a note over 500 characters, a bad by, an unknown policy or a bad bound: refused by name, nothing changed', async () => {
    env = testEnv('pause-bad');
    const m = env.manager({ role: 'client' });
    await m.schedule({ name: 'b' }, new IntervalTrigger(60), { id: 'b' }).saved;
    const fieldOf = async (p: Promise<unknown>) => {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ScheduleOptionsError);
      return (err as ScheduleOptionsError).field;
    };
    expect(await fieldOf(m.pause('b', { note: 'x'.repeat(501) }))).toBe('note');
    expect(await fieldOf(m.pause('b', { note: 42 as never }))).toBe('note');
    expect(await fieldOf(m.pause('b', { by: '' }))).toBe('by');
    expect((await m.get('b'))!.status).toBe('active');
    expect(await env.redis.hlen(notes())).toBe(0);
    expect(await m.pause('b', { note: 'x'.repeat(500) })).toBe(true);
    expect(await fieldOf(m.resume('b', { policy: 'twice' as never }))).toBe('policy');
    expect(await fieldOf(m.resume('b', { policy: 'all', maxCatchUp: -1 }))).toBe('maxCatchUp');
    expect(await fieldOf(m.resume('b', { polcy: 'once' } as never))).toBe('polcy');
    const job = (await m.get('b'))!;
    expect(job.status).toBe('paused');
    expect(job.pauseNote?.note).toHaveLength(500);
  });

  it('a schedule paused before its startAt resumes at its first occurrence at or after startAt', async () => {
    env = testEnv('resume-start');
    const m = env.manager({ role: 'client' });
    const startAt = (await redisNow(env.redis)) + 3_600_500;
    await m.schedule({ name: 's' }, new IntervalTrigger(1), { id: 's', startAt }).saved;
    expect(await m.pause('s')).toBe(true);
    expect(await m.resume('s')).toBe(true);
    expect((await m.get('s'))!.nextRunTime).toBe(Math.ceil(startAt / 1000) * 1000);
  });

  it('skip (the default) runs nothing that was due while paused', async () => {
    const { m, time } = await onManualTime('resume-skip');
    await m.schedule({ name: 's' }, new IntervalTrigger(0.1), { id: 's' }).saved;
    await m.pause('s');
    await time.advance(450);
    expect(await m.resume('s', { policy: 'skip' })).toBe(true);
    expect(await env.jobIds()).toEqual([]);
    expect(await m.history('s')).toEqual([]);
  });

  it('once: one catch-up run at resume standing for every missed occurrence', async () => {
    const { m, time } = await onManualTime('resume-once');
    await m.schedule({ name: 'o' }, new IntervalTrigger(0.1), { id: 'o' }).saved;
    await m.pause('o', { note: 'maintenance' });
    const pausedAt = (await m.get('o'))!.pauseNote!.at;
    await time.advance(450);
    expect(await m.resume('o', { policy: 'once' })).toBe(true);
    const resumedBy = time.now();
    const ids = await env.jobIds();
    expect(ids).toHaveLength(1);
    const [record] = await m.history('o');
    expect(record).toMatchObject({ kind: 'catch-up', outcome: 'enqueued', jobId: ids[0] });
    expect(record!.coalesced).toBeGreaterThanOrEqual(4);
    expect(record!.fireAt).toBeGreaterThan(pausedAt);
    expect(record!.fireAt % 100).toBe(0); // one of the trigger's occurrences: the latest missed
    expect(record!.fireAt).toBeLessThanOrEqual(resumedBy);
    const job = (await m.get('o'))!;
    expect(job.status).toBe('active');
    expect(job.nextRunTime!).toBeGreaterThan(record!.fireAt);
    expect(job.pauseNote).toBeNull();
  });

  it('all: each missed occurrence once, bounded by maxCatchUp (more is refused, nothing changed)', async () => {
    const { m, time } = await onManualTime('resume-all');
    await m.schedule({ name: 'a' }, new IntervalTrigger(0.1), { id: 'a' }).saved;
    await m.pause('a');
    const pausedAt = (await m.get('a'))!.pauseNote!.at;
    await time.advance(650);
    const err = (await m
      .resume('a', { policy: 'all', maxCatchUp: 3 })
      .catch((e) => e)) as ScheduleOptionsError;
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect(err.field).toBe('maxCatchUp');
    expect((await m.get('a'))!.status).toBe('paused');
    expect(await env.jobIds()).toEqual([]);

    expect(await m.resume('a', { policy: 'all' })).toBe(true);
    const resumedBy = time.now();
    const records = (await m.history('a')).reverse();
    expect(records.length).toBeGreaterThanOrEqual(6);
    expect(records.every((r) => r.kind === 'catch-up' && r.outcome === 'enqueued')).toBe(true);
    const times = records.map((r) => r.fireAt);
    // the pause's own instant is in the pause: an occurrence there is the first caught up
    expect(times[0]!).toBeGreaterThanOrEqual(pausedAt);
    expect(times[0]! - pausedAt).toBeLessThan(100);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(100);
    expect(times.at(-1)!).toBeLessThanOrEqual(resumedBy);
    expect(resumedBy - times.at(-1)!).toBeLessThan(200); // none left out at the end
    expect(new Set(await env.jobIds())).toEqual(new Set(records.map((r) => r.jobId)));
    // resumed: a second resume is a no-op and enqueues nothing more
    expect(await m.resume('a', { policy: 'all' })).toBe(false);
    expect(await env.jobIds()).toHaveLength(records.length);
  });

  it("all without a bound: the schedule's own maxCatchUp bounds it (one catch-up default, 1000)", async () => {
    const { m, time } = await onManualTime('resume-own-bound');
    await m.schedule({ name: 'a' }, new IntervalTrigger(0.1), { id: 'a', maxCatchUp: 2 }).saved;
    await m.schedule({ name: 'b' }, new IntervalTrigger(0.1), { id: 'b' }).saved;
    expect((await m.get('b'))!.def.maxCatchUp).toBe(1000);
    await m.pause('a');
    await m.pause('b');
    await time.advance(451);
    expect(time.now() - (await m.get('a'))!.pauseNote!.at).toBeGreaterThan(450);
    const err = (await m.resume('a', { policy: 'all' }).catch((e) => e)) as ScheduleOptionsError;
    expect(err).toBeInstanceOf(ScheduleOptionsError);
    expect(err.field).toBe('maxCatchUp');
    expect(err.message).toContain('more than 2 occurrences were due');
    expect((await m.get('a'))!.status).toBe('paused');
    // the schedule's default, 1000, lets the same few through
    expect(await m.resume('b', { policy: 'all' })).toBe(true);
    expect((await m.history('b')).length).toBeGreaterThan(2);
  });

  it('all, with the default overlap: the catch-up runs go one after another, every one runs (real worker)', async () => {
    const { m, time } = await onManualTime('resume-all-run');
    const ran: number[] = [];
    let live = 0;
    let most = 0;
    m.schedule(
      async function tick(ctx: { fireAt: number; kind: string }) {
        most = Math.max(most, ++live);
        await new Promise((r) => setTimeout(r, 30));
        live--;
        if (ctx.kind === 'catch-up') ran.push(ctx.fireAt);
      },
      new IntervalTrigger(0.1),
      { id: 'tick' },
    );
    await m.start();
    await m.pause('tick');
    worker = await createWorker(m, { logger: silent, concurrency: 10 });
    await time.advance(1050);
    expect(await m.resume('tick', { policy: 'all' })).toBe(true);
    await m.pause('tick'); // nothing else of it runs meanwhile (a client fires nothing anyway)
    const records = (await m.history('tick')).filter((r) => r.kind === 'catch-up');
    expect(records.length).toBeGreaterThanOrEqual(10);
    await waitUntil(() => ran.length >= records.length, 20_000);
    expect(ran.sort((a, b) => a - b)).toEqual(records.map((r) => r.fireAt).sort((a, b) => a - b));
    expect(most).toBe(1);
    await waitUntil(async () =>
      (await m.history('tick')).filter((r) => r.kind === 'catch-up').every((r) => r.outcome === 'succeeded'),
    );
  });

  it('a crash right after the status change: the owed catch-up runs are enqueued by a replica', async () => {
    const { time } = await onManualTime('resume-crash');
    const crashed = env.manager({ role: 'client', claimLeaseMs: 400 });
    time.attach(crashed);
    await crashed.schedule({ name: 'c' }, new IntervalTrigger(0.1), { id: 'c' }).saved;
    await crashed.pause('c');
    await time.advance(450);
    // the process stops for good right after the status change: its enqueue never happens
    const realQueue = internalsOf(crashed).queue.bind(crashed);
    internalsOf(crashed).queue = ((name: string) => {
      const q = realQueue(name);
      return new Proxy(q, {
        get: (target, key) => {
          if (key === 'addBulk') return () => new Promise(() => {});
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    }) as never;
    void crashed.resume('c', { policy: 'all' });
    await waitUntil(async () => (await crashed.get('c'))?.status === 'active');
    expect(await env.jobIds()).toEqual([]);
    await crashed.pause('c'); // keep the fire loop from adding scheduled runs: only the catch-up counts
    const replica = env.manager({ claimLeaseMs: 400 });
    time.attach(replica);
    await replica.start();
    // the catch-up runs are owed until two claim leases after the resume: Redis's clock moves there
    await time.advanceUntil(async () => (await env.jobIds()).length >= 4, 10_000, 50);
    const records = (await replica.history('c')).filter((r) => r.kind === 'catch-up');
    expect(records.length).toBeGreaterThanOrEqual(4);
    expect(new Set(await env.jobIds())).toEqual(new Set(records.map((r) => r.jobId)));
    expect(records.every((r) => r.outcome === 'enqueued')).toBe(true);
    expect(await env.redis.zcard(internalsOf(replica).keys.partition(0).owedRuns)).toBe(0);
  });
});
