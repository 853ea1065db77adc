import { Queue, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { handOverScheduler } from '../../src/store/bullmq/bull-repeat.js';
import { BullmqHandovers } from '../../src/store/bullmq/bullmq-handover.js';
import { REDIS_URL, silent, testEnv } from '../scheduler/helpers.js';
import { waitUntil } from '../wait-until.js';
import { runBullbeat } from './run-bullbeat.js';

// A BullMQ app moved to bullbeat in two steps (`import:bullmq`, later `import:bullmq
// --remove-originals`), with the scheduler started before, between or after them. A plain BullMQ
// Worker runs every job, BullMQ's and bullbeat's alike; each instant of each schedule is counted by
// the instant its job stands for (`repeat:<id>:<ms>`, `bb-<id>-<ms>`). No wall-clock assertion: only
// the counts per instant.

/** `cut-short`: a hand-over that stops (a crash) right after BullMQ's side is removed. */
type Step = 'import' | 'remove' | 'scheduler' | 'cut-short';

interface AppScheduler {
  id: string;
  repeat: { every?: number; pattern?: string; tz?: string; limit?: number };
  periodMs: number;
}

/**
 * The schedulers of the app: an interval and a cron one (every second, on its own grid). Short periods:
 * what is counted is instants, and a few of them pass between the steps.
 */
const SCHEDULERS: readonly AppScheduler[] = [
  { id: 'ping', repeat: { every: 250 }, periodMs: 250 },
  { id: 'tick', repeat: { pattern: '* * * * * *', tz: 'UTC' }, periodMs: 1000 },
];

/**
 * A job scheduler with a `limit`: its runs on both sides add up to it (its steps an instant apart, so
 * that bullbeat runs a few). Every second, not faster: a hand-over slower than a period backfills what
 * came due meanwhile, and such a backfilled run goes one past the limit (seen at 250 ms on a loaded box).
 * Its Worker is stopped while each step runs (`holdBullmq`), so BullMQ has made 4 of them at the
 * hand-over however long the steps take (3 run, one pending), 5 if a Worker took two in one gap:
 * bullbeat runs the last 2, or the last one.
 */
const LIMITED: readonly AppScheduler[] = [{ id: 'six', repeat: { every: 1000, limit: 6 }, periodMs: 1000 }];

/** The instant a job stands for, and whose job it is. */
function instantOf(jobId: string): { schedule: string; at: number; by: 'bullmq' | 'bullbeat' } {
  const m = /^repeat:(.+):(\d+)$/.exec(jobId) ?? /^bb-(.+)-b?(\d+)$/.exec(jobId);
  if (!m) throw new Error(`unexpected job id ${jobId}`);
  return { schedule: m[1] as string, at: Number(m[2]), by: jobId.startsWith('bb-') ? 'bullbeat' : 'bullmq' };
}

interface Tally {
  /** `<schedule>@<ms>` → the sides that ran it, one entry per run. */
  runs: Map<string, ('bullmq' | 'bullbeat')[]>;
  twice: string[];
  /** Ran by none, and not recorded by bullbeat as missed or coalesced under its policies. */
  lost: string[];
  /** With `done`: what could still run once it held (BullMQ's jobs and job schedulers, bullbeat's next runs). */
  left: string[];
  /** Ran by BullMQ only, and `schedule:why` does not say so. */
  whyWrong: string[];
  /**
   * BullMQ's own, before the hand-over, and run by none: its worker took the job before it late, and
   * BullMQ makes a job scheduler's next job at its first instant after that moment (its documented
   * rule: a late worker skips instants, it never catches up). Not the hand-over's to run.
   */
  skippedByBullmq: string[];
  /** After the last step, bullbeat ran fewer than 2 instants of a schedule: where each one stands. */
  stalled: string[];
}

/** `schedule:why` causes of an occurrence bullbeat recorded as not run, by its misfire and backpressure policies. */
const RECORDED = ['coalesced', 'misfire', 'catch-up-window', 'max-catch-up'];

/**
 * Runs the steps in order, `gap` instants apart, then counts each instant from BullMQ's first run on;
 * `done` says when bullbeat has run enough of them. `holdBullmq`: the app's Worker is stopped while each
 * step runs (and a new one started after). BullMQ makes a job scheduler's next job when a Worker takes
 * the current one, so BullMQ's count moves on only in the instants between steps (`gap` runs each), not
 * while a step is slow.
 */
async function migrate(
  steps: readonly Step[],
  schedulers: readonly AppScheduler[] = SCHEDULERS,
  {
    done,
    gap = 2,
    holdBullmq = false,
  }: {
    done?: (runs: Map<string, ('bullmq' | 'bullbeat')[]>) => boolean;
    gap?: number;
    holdBullmq?: boolean;
  } = {},
): Promise<Tally> {
  const env = testEnv('migrate-orders');
  const cli = { BULLBEAT_PREFIX: env.prefix, REDIS_URL };
  const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
  const runs = new Map<string, ('bullmq' | 'bullbeat')[]>();
  /** `<schedule>@<ms>` → when BullMQ made the job (its `timestamp`, ms), for BullMQ's jobs. */
  const madeAt = new Map<string, number>();
  /** What each `import:bullmq` said of each hand-over. */
  const handOvers: string[] = [];
  const startWorker = () =>
    new Worker(
      env.queue,
      async (job) => {
        const { schedule, at, by } = instantOf(job.id as string);
        // the app's data, as BullMQ made it, on bullbeat's jobs too (payload plain)
        if (JSON.stringify(job.data) !== '{"from":"app"}')
          throw new Error(`job.data ${JSON.stringify(job.data)}`);
        const key = `${schedule}@${at}`;
        if (by === 'bullmq') madeAt.set(key, job.timestamp);
        runs.set(key, [...(runs.get(key) ?? []), by]);
      },
      { connection: { url: REDIS_URL }, concurrency: 4 },
    );
  let worker = startWorker();
  let scheduler: SchedulerManager | undefined;
  /**
   * Whether BullMQ's rule skipped the instant `t` of schedule `id`: the job BullMQ made next after `t`
   * was made after `t` (its worker took the job before `t` late, and BullMQ makes a job scheduler's
   * next job at its first instant after that moment; the hand-over ends BullMQ's chain of jobs, it
   * never leaves a gap inside it).
   */
  const skippedByBullmq = (id: string, t: number): boolean => {
    let next: number | undefined;
    for (const [k, sides] of runs) {
      const [sid, ms] = k.split('@');
      if (sid === id && sides.includes('bullmq') && Number(ms) > t && Number(ms) < (next ?? Infinity))
        next = Number(ms);
    }
    return next !== undefined && (madeAt.get(`${id}@${next}`) ?? 0) > t;
  };
  const ran = (by: 'bullmq' | 'bullbeat') => [...runs.values()].flat().filter((b) => b === by).length;
  /**
   * A few instants pass between steps: until `n` more jobs ran, or for as long as `n` instants take
   * when none runs (BullMQ's originals gone and no scheduler started yet).
   */
  const periodMs = Math.min(...schedulers.map((s) => s.periodMs));
  const instantsPass = async (n: number) => {
    const seen = ran('bullmq') + ran('bullbeat');
    await waitUntil(() => ran('bullmq') + ran('bullbeat') >= seen + n, n * periodMs, {
      stepMs: 20,
    }).catch(() => undefined);
  };
  /** What could still run: BullMQ's job schedulers and jobs not finished, bullbeat's next runs. */
  const stillToRun = async (): Promise<string[]> => {
    const out = (await queue.getJobSchedulers()).map((j) => `BullMQ job scheduler ${j.key}`);
    const jobs = await queue.getJobs(['wait', 'active', 'delayed', 'prioritized']);
    out.push(...jobs.filter((j) => j !== undefined).map((j) => `job ${j.id}`));
    for (const s of schedulers) {
      const next = (await scheduler?.get(s.id))?.nextRunTime;
      if (next != null) out.push(`${s.id}: bullbeat's next run at ${new Date(next).toISOString()}`);
    }
    return out;
  };
  try {
    for (const s of schedulers) {
      await queue.upsertJobScheduler(s.id, s.repeat, { name: s.id, data: { from: 'app' } });
    }
    await worker.waitUntilReady();
    await instantsPass(gap);
    for (const step of steps) {
      // closed, not paused: a BullMQ Worker resumed after pause() can wait up to 10 s before it sees
      // a delayed job come due; a new one looks at once
      if (holdBullmq) await worker.close();
      if (step === 'scheduler') {
        scheduler = new SchedulerManager({
          prefix: env.prefix,
          connection: REDIS_URL,
          logger: silent,
          pauseOrphans: false,
        });
        await scheduler.start();
      } else if (step === 'cut-short') {
        for (const s of schedulers) await cutShort(env, s.id);
      } else {
        const args = ['import:bullmq', '--queue', env.queue, '--tz', 'UTC'];
        const run = await runBullbeat(step === 'remove' ? [...args, '--remove-originals'] : args, {
          env: cli,
        });
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        handOvers.push(
          ...run.stdout
            .split('\n')
            .filter((l) => /hand-over:/.test(l))
            .map((l) => `${step}: ${l.trim()}`),
        );
      }
      if (holdBullmq) worker = startWorker();
      await instantsPass(gap);
    }
    // after the last step, bullbeat runs two instants or more of each schedule
    const byBullbeat = (id: string) =>
      [...runs].filter(([k, by]) => k.startsWith(`${id}@`) && by.includes('bullbeat')).length;
    const ranEnough = await waitUntil(
      () => done?.(runs) ?? schedulers.every((s) => byBullbeat(s.id) >= 2),
      40_000,
      { stepMs: 20 },
    ).catch(() => false);
    // the runs `done` waited for are all there are: nothing is left to run on either side
    let left: string[] = [];
    if (done) {
      await waitUntil(async () => (left = await stillToRun()).length === 0, 10_000, {
        what: 'nothing left to run',
      }).catch(() => undefined);
    }
    const tally: Tally = { runs, twice: [], lost: [], left, whyWrong: [], skippedByBullmq: [], stalled: [] };
    if (!ranEnough) tally.stalled = await standing(env, schedulers, byBullbeat, handOvers);
    const why = async (id: string, at: number) => {
      const run = await runBullbeat(['schedule:why', id, '--at', String(at), '--json'], { env: cli });
      return JSON.parse(run.stdout) as { cause: string | null; summary: string };
    };
    /** The instants ran by BullMQ only, or by none: schedule:why must say so (none: a policy of bullbeat's recorded it). */
    const asked: { id: string; t: number; at: string; by: readonly string[] }[] = [];
    for (const s of schedulers) {
      const instants = [...runs.keys()]
        .filter((k) => k.startsWith(`${s.id}@`))
        .map((k) => Number(k.split('@')[1]));
      const first = Math.min(...instants);
      // the newest instants may still be on their way: count up to two periods before the newest run
      const last = Math.max(...instants) - 2 * s.periodMs;
      for (let t = first; t <= last; t += s.periodMs) {
        const by = runs.get(`${s.id}@${t}`) ?? [];
        const at = `${s.id}@${new Date(t).toISOString()}`;
        if (by.length > 1) tally.twice.push(`${at} ${by.join('+')}`);
        if (by.length !== 1 || by[0] !== 'bullbeat') asked.push({ id: s.id, t, at, by: [...by] });
      }
    }
    // asked 8 at a time: each is a CLI run of its own (a client, its connection), mostly waiting on Redis
    const answers: Awaited<ReturnType<typeof why>>[] = [];
    for (let i = 0; i < asked.length; i += 8) {
      answers.push(...(await Promise.all(asked.slice(i, i + 8).map(({ id, t }) => why(id, t)))));
    }
    asked.forEach(({ id, t, at, by }, i) => {
      const said = answers[i] as Awaited<ReturnType<typeof why>>;
      if (by.length === 0 && said.cause === 'bullmq' && skippedByBullmq(id, t)) {
        tally.skippedByBullmq.push(at);
        return;
      }
      if (by.length === 0 && !RECORDED.includes(said.cause ?? ''))
        tally.lost.push(`${at} (why: ${said.cause})`);
      if (by.length === 1 && !/BullMQ/.test(said.summary))
        tally.whyWrong.push(`${at} ${said.cause}: ${said.summary}`);
    });
    return tally;
  } finally {
    await scheduler?.stop().catch(() => undefined);
    await scheduler?.close().catch(() => undefined);
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await env.cleanup();
  }
}

/**
 * What `import:bullmq --remove-originals` does to a held schedule up to the removal of BullMQ's job
 * scheduler (its record's `until` at BullMQ's pending job T, the removal that keeps T's job), and
 * then nothing more: the schedule stays paused, its start not moved, as after a crash there.
 */
async function cutShort(env: ReturnType<typeof testEnv>, id: string): Promise<void> {
  const m = new SchedulerManager({
    role: 'client',
    prefix: env.prefix,
    connection: REDIS_URL,
    logger: silent,
  });
  const repeat = new Queue(env.queue, { connection: { url: REDIS_URL } });
  try {
    const repeatKey = repeat.keys.repeat as string;
    const createdAt = (await m.get(id))?.toJSON().createdAt ?? 0;
    const records = new BullmqHandovers(internalsOf(m).redis, internalsOf(m).keys);
    for (let done = 'moved-on'; done === 'moved-on'; ) {
      const pending = Number(await env.redis.zscore(repeatKey, id));
      await records.set(id, { scheduler: id, queue: env.queue, createdAt, until: pending });
      done = await handOverScheduler(env.redis, repeatKey, id, pending);
      if (done === 'moved-on')
        await records.set(id, { scheduler: id, queue: env.queue, createdAt, until: null });
    }
  } finally {
    await repeat.close();
    await m.close();
  }
}

/** Where each schedule stands when bullbeat has not run enough of it: its runs, status and hand-overs. */
async function standing(
  env: ReturnType<typeof testEnv>,
  schedulers: readonly AppScheduler[],
  byBullbeat: (id: string) => number,
  handOvers: readonly string[],
): Promise<string[]> {
  const m = new SchedulerManager({
    role: 'client',
    prefix: env.prefix,
    connection: REDIS_URL,
    logger: silent,
  });
  try {
    const out: string[] = [];
    for (const s of schedulers) {
      const job = (await m.get(s.id))?.toJSON();
      out.push(
        `${s.id}: ${byBullbeat(s.id)} run by bullbeat; status ${job?.status}, next ${job?.nextRunTime}`,
      );
    }
    return [...out, ...handOvers];
  } finally {
    await m.close();
  }
}

const ORDERS: (readonly Step[])[] = [
  ['import', 'scheduler', 'remove'],
  ['import', 'remove', 'scheduler'],
  ['scheduler', 'import', 'remove'],
  ['remove', 'scheduler'],
  ['scheduler', 'remove'],
  ['import', 'scheduler', 'import', 'remove'],
  ['import', 'scheduler', 'cut-short', 'remove'],
];

// The two cases side by side: each waits on instants of its own queue and prefix.
describe.concurrent('a BullMQ app moved over in two steps, its plain Worker unchanged', () => {
  it('two-step migration in every order: 0 twice, 0 lost', async () => {
    const results = await Promise.all(ORDERS.map((steps) => migrate(steps)));
    const summary = ORDERS.map((steps, i) => ({
      steps: steps.join(' → '),
      once: [...(results[i]?.runs.values() ?? [])].filter((by) => by.length === 1).length,
      twice: results[i]?.twice ?? [],
      lost: results[i]?.lost ?? [],
      whyWrong: results[i]?.whyWrong ?? [],
      stalled: results[i]?.stalled ?? [],
      skippedByBullmq: results[i]?.skippedByBullmq ?? [],
    }));
    console.log(JSON.stringify(summary, null, 2));
    expect(
      summary.filter((s) => s.twice.length + s.lost.length + s.whyWrong.length + s.stalled.length > 0),
    ).toEqual([]);
  }, 240_000);

  it('a limit carries over the hand-over: BullMQ and bullbeat run it limit times in all, each instant once', async () => {
    const total = (runs: Map<string, unknown[]>) => [...runs.values()].flat().length;
    const tally = await migrate(['import', 'scheduler', 'remove'], LIMITED, {
      done: (runs) => total(runs) >= 6,
      gap: 1,
      holdBullmq: true,
    });
    expect({
      twice: tally.twice,
      lost: tally.lost,
      stalled: tally.stalled,
      left: tally.left,
      runs: total(tally.runs),
    }).toEqual({ twice: [], lost: [], stalled: [], left: [], runs: 6 });
    expect([...tally.runs.values()].flat()).toContain('bullbeat');
  }, 120_000);
});
