// The example jobs module that `npm start` runs (`bullbeat dev dist/examples/jobs.js`), and that the
// compose file's schedulers and workers load. One module serves every role: a scheduler replica
// upserts these schedules and enqueues their occurrences; a worker runs the handlers by name.
//
// In your own project, import from 'bullbeat' instead of '../src/index.js'.
import {
  CompoundLogic,
  CompoundTrigger,
  CronTrigger,
  DateTrigger,
  IntervalTrigger,
  type Middleware,
  type RunContext,
  SchedulerManager,
  timeoutMiddleware,
} from '../src/index.js';

const scheduler = new SchedulerManager({
  // The CLI checks that this matches BULLBEAT_PREFIX / --prefix (REDIS_URL is read by default).
  prefix: process.env.BULLBEAT_PREFIX,
  // BullMQ queues are global to a Redis (whatever bullbeat's prefix), so the example keeps to queues
  // of its own: on a shared development Redis it never takes another application's jobs.
  defaultQueue: 'examples',
});

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

// ── custom middleware (Sillo's factory form: (handler, job) => handler; the first listed is outermost)
/** Logs how long each run took and how it ended. */
const timing: Middleware = (handler, job) => async (ctx: RunContext) => {
  const started = Date.now();
  try {
    const result = await handler(ctx);
    ctx.logger.info(
      { schedule: job.id, ms: Date.now() - started, attempt: ctx.attempt },
      `${job.name}: done`,
    );
    return result;
  } catch (error) {
    ctx.logger.warn(
      { schedule: job.id, ms: Date.now() - started, attempt: ctx.attempt, err: (error as Error).message },
      `${job.name}: failed`,
    );
    throw error;
  }
};

// ── 1. a weekday report at 09:00 New York time (DST handled), on its own queue
scheduler.cron('0 9 * * 1-5', {
  timezone: 'America/New_York',
  queue: 'example-reports',
  middleware: [timing],
})(async function weekdayReport(ctx: RunContext) {
  const day = new Date(ctx.fireAt).toISOString().slice(0, 10);
  ctx.logger.info({ day }, 'weekday report: compiled and mailed');
  return { day, rows: 42 };
});

// ── 2. a cache refresh every 15 s, plus up to 3 s of jitter so that many such jobs spread out
scheduler.every(15, {
  jitter: 3,
  name: 'refresh-cache',
  middleware: [timing, timeoutMiddleware({ seconds: 5 })],
})(async (ctx: RunContext) => {
  await sleep(200, ctx.signal);
  ctx.logger.info({ lateMs: Date.now() - ctx.fireAt }, 'cache refreshed');
});

// ── 3. a one-shot reminder, 30 s after this process started (then the schedule completes).
// A one-shot made at runtime is better added with `bullbeat schedule:add --name remind --at <ISO>`.
scheduler.schedule(
  async function reminder(message: string, ctx: RunContext) {
    ctx.logger.info({ message }, 'reminder');
  },
  new DateTrigger(Date.now() + 30_000),
  { id: 'reminder', args: ['the example has been running for 30 seconds'] },
);

// ── 4. a compound trigger: at :00 and :30 of every minute (cron with seconds) OR every 20 s, whichever
// comes first; see `schedule:list` for it in words
scheduler.schedule(
  async function auditSweep(ctx: RunContext) {
    ctx.logger.info({ fireAt: new Date(ctx.fireAt).toISOString() }, 'audit sweep');
  },
  new CompoundTrigger([new CronTrigger('0,30 * * * * *'), new IntervalTrigger(20)], CompoundLogic.OR),
  { name: 'audit-sweep' },
);

// ── 5. a flaky job that shows retries: BullMQ retries it (3 attempts, 1 s then 2 s backoff); the
// dashboard shows each attempt in the schedule's history
scheduler.every(20, { name: 'flaky-sync', attempts: 3, backoff: { type: 'exponential', delay: 1000 } })(
  async (ctx: RunContext) => {
    if (ctx.attempt < 3 && Math.random() < 0.6) {
      throw new Error(`upstream answered 503 (attempt ${ctx.attempt})`);
    }
    ctx.logger.info({ attempt: ctx.attempt }, 'flaky sync: done');
  },
);

// ── 6. a slow job that shows overlap skipping: every 5 s, takes 12 s; overlap 'skip' (one at a time) means
// occurrences due while it runs are recorded as `skipped: overlap` rather than piling up
scheduler.every(5, { name: 'slow-export', overlap: 'skip', maxInstances: 1, timeoutMs: 30_000 })(
  async (ctx: RunContext) => {
    await sleep(12_000, ctx.signal);
    ctx.logger.info('slow export: written');
  },
);

// ── 7. a schedule that enqueues into an existing BullMQ queue with no handler here: any BullMQ
// consumer of `example-emails` runs it (examples/email-service.ts is a plain BullMQ Worker; npm start runs it)
scheduler.schedule({ queue: 'example-emails', name: 'send-digest' }, new CronTrigger('*/30 * * * * *'), {
  id: 'email-digest',
  data: { list: 'subscribers' },
});

// ── 8. a class whose methods are schedules (TC39 decorators): registered when an instance is made
class Maintenance {
  private vacuums = 0;

  @scheduler.cron('0 3 * * *', { timezone: 'Europe/Paris', name: 'vacuum-db' })
  async vacuum(ctx: RunContext) {
    this.vacuums++;
    ctx.logger.info({ vacuums: this.vacuums }, 'database vacuumed');
  }

  @scheduler.every(45, { name: 'heartbeat', middleware: [timing] })
  async heartbeat(ctx: RunContext) {
    ctx.logger.debug({ fireAt: ctx.fireAt }, 'heartbeat');
  }
}
new Maintenance();

export default scheduler;
