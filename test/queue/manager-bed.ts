import pino from 'pino';
import { afterEach } from 'vitest';
import { createWorker, type WorkerHandle } from '../../src/queue/index.js';
import { SchedulerManager } from '../../src/scheduler/index.js';
import { TestBed } from './helpers.js';

const silent = pino({ level: 'silent' });

/** One test's real SchedulerManager on a fresh prefix and queue, and bullbeat's worker for it. */
export interface ManagerBed {
  bed: TestBed;
  scheduler: SchedulerManager;
  /** Starts the worker on the manager's queues, waits until it takes jobs, then starts the manager. */
  start(): Promise<WorkerHandle>;
}

/**
 * The test bed of the files that run the real SchedulerManager with the real worker runtime. Call once at
 * the top of the file; each test calls the returned function (define its schedules, then `start`), and
 * after each test the worker, the manager and the keys are gone.
 */
export function useManagerBed(): () => ManagerBed {
  let current: { bed: TestBed; scheduler: SchedulerManager; handle?: WorkerHandle } | undefined;
  afterEach(async () => {
    if (!current) return;
    const { bed, scheduler, handle } = current;
    current = undefined;
    await handle?.close({ graceMs: 1000 });
    await scheduler.stop();
    await bed.cleanup();
  });
  return () => {
    const bed = new TestBed();
    const scheduler = new SchedulerManager({
      prefix: bed.prefix,
      defaultQueue: bed.queueName,
      logger: silent,
    });
    const entry: { bed: TestBed; scheduler: SchedulerManager; handle?: WorkerHandle } = { bed, scheduler };
    current = entry;
    return {
      bed,
      scheduler,
      async start() {
        const handle = await createWorker(scheduler, { logger: silent });
        entry.handle = handle;
        await handle.ready();
        await scheduler.start();
        return handle;
      },
    };
  };
}
