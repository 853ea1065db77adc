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

/** The schedulers of the app: an interval and a cron one (every 2 s, on its own grid). */
const SCHEDULERS: readonly AppScheduler[] = [
  { id: 'ping', repeat: { every: 1000 }, periodMs: 1000 },
  { id: 'tick', repeat: { pattern: '*/2 * * * * *', tz: 'UTC' }, periodMs: 2000 },
];

/** A job scheduler with a `limit`: its runs on both sides add up to it. */
const LIMITED: readonly AppScheduler[] = [
  { id: 'fourteen', repeat: { every: 1000, limit: 14 }, periodMs: 1000 },
];

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
  /** Ran by BullMQ only, and `schedule:why` does not say so. */
  whyWrong: string[];
}

/** `schedule:why` causes of an occurrence bullbeat recorded as not run, by its misfire and backpressure policies. */
const RECORDED = ['coalesced', 'misfire', 'catch-up-window', 'max-catch-up'];

/**
 * Runs the steps in order, a few instants apart, then counts each instant from BullMQ's first run on;
 * `done` says when bullbeat has run enough of them.
 */
async function migrate(
  steps: readonly Step[],
  schedulers: readonly AppScheduler[] = SCHEDULERS,
  done?: (runs: Map<string, ('bullmq' | 'bullbeat')[]>) => boolean,
): Promise<Tally> {
  const env = testEnv('migrate-orders');
  const cli = { BULLBEAT_PREFIX: env.prefix, REDIS_URL };
  const queue = new Queue(env.queue, { connection: { url: REDIS_URL } });
  const runs = new Map<string, ('bullmq' | 'bullbeat')[]>();
  const worker = new Worker(
    env.queue,
    async (job) => {
      const { schedule, at, by } = instantOf(job.id as string);
      // the app's data, as BullMQ made it, on bullbeat's jobs too (payload plain)
      if (JSON.stringify(job.data) !== '{"from":"app"}')
        throw new Error(`job.data ${JSON.stringify(job.data)}`);
      const key = `${schedule}@${at}`;
      runs.set(key, [...(runs.get(key) ?? []), by]);
    },
    { connection: { url: REDIS_URL }, concurrency: 4 },
  );
  let scheduler: SchedulerManager | undefined;
  const ran = (by: 'bullmq' | 'bullbeat') => [...runs.values()].flat().filter((b) => b === by).length;
  /**
   * A few instants pass between steps: until `n` more jobs ran, or for as long as `n` instants take
   * when none runs (BullMQ's originals gone and no scheduler started yet).
   */
  const instantsPass = async (n: number) => {
    const seen = ran('bullmq') + ran('bullbeat');
    await waitUntil(() => ran('bullmq') + ran('bullbeat') >= seen + n, n * 1000, { stepMs: 50 }).catch(
      () => undefined,
    );
  };
  try {
    for (const s of schedulers) {
      await queue.upsertJobScheduler(s.id, s.repeat, { name: s.id, data: { from: 'app' } });
    }
    await worker.waitUntilReady();
    await instantsPass(3);
    for (const step of steps) {
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
      }
      await instantsPass(4);
    }
    // after the last step, bullbeat runs several instants of each schedule
    await waitUntil(
      () =>
        done?.(runs) ??
        schedulers.every(
          (s) =>
            [...runs].filter(([k, by]) => k.startsWith(`${s.id}@`) && by.includes('bullbeat')).length >= 3,
        ),
      40_000,
      { stepMs: 50 },
    );
    // a few more instants: the runs `done` waited for are all there are
    if (done) await new Promise((r) => setTimeout(r, 3000));
    const tally: Tally = { runs, twice: [], lost: [], whyWrong: [] };
    const why = async (id: string, at: number) => {
      const run = await runBullbeat(['schedule:why', id, '--at', String(at), '--json'], { env: cli });
      return JSON.parse(run.stdout) as { cause: string | null; summary: string };
    };
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
        if (by.length === 1 && by[0] === 'bullbeat') continue;
        // ran by BullMQ only, or by none: schedule:why says so (none: a policy of bullbeat's recorded it)
        const said = await why(s.id, t);
        if (by.length === 0 && !RECORDED.includes(said.cause ?? ''))
          tally.lost.push(`${at} (why: ${said.cause})`);
        if (by.length === 1 && !/BullMQ/.test(said.summary))
          tally.whyWrong.push(`${at} ${said.cause}: ${said.summary}`);
      }
    }
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
 * scheduler (its start after BullMQ's pending job T, its record, the removal that keeps T's job), and
 * then nothing more: the schedule stays paused, as after a crash there.
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
    for (let done = 'moved-on'; done === 'moved-on'; ) {
      const pending = Number(await env.redis.zscore(repeatKey, id));
      await m.update(id, { startAt: pending + 1 });
      const createdAt = (await m.get(id))?.toJSON().createdAt ?? 0;
      const record = { scheduler: id, queue: env.queue, createdAt, until: pending };
      await new BullmqHandovers(internalsOf(m).redis, internalsOf(m).keys).set(id, record);
      done = await handOverScheduler(env.redis, repeatKey, id, pending);
    }
  } finally {
    await repeat.close();
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

describe('a BullMQ app moved over in two steps, its plain Worker unchanged', () => {
  it('two-step migration in every order: 0 twice, 0 lost', async () => {
    const results = await Promise.all(ORDERS.map((steps) => migrate(steps)));
    const summary = ORDERS.map((steps, i) => ({
      steps: steps.join(' → '),
      once: [...(results[i]?.runs.values() ?? [])].filter((by) => by.length === 1).length,
      twice: results[i]?.twice ?? [],
      lost: results[i]?.lost ?? [],
      whyWrong: results[i]?.whyWrong ?? [],
    }));
    console.log(JSON.stringify(summary, null, 2));
    expect(summary.filter((s) => s.twice.length + s.lost.length + s.whyWrong.length > 0)).toEqual([]);
  }, 240_000);

  it('a limit carries over the hand-over: BullMQ and bullbeat run it limit times in all, each instant once', async () => {
    const total = (runs: Map<string, unknown[]>) => [...runs.values()].flat().length;
    const tally = await migrate(['import', 'scheduler', 'remove'], LIMITED, (runs) => total(runs) >= 14);
    expect({ twice: tally.twice, lost: tally.lost, runs: total(tally.runs) }).toEqual({
      twice: [],
      lost: [],
      runs: 14,
    });
    expect([...tally.runs.values()].flat()).toContain('bullbeat');
  }, 120_000);
});
