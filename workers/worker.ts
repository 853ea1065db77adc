#!/usr/bin/env node
// A worker process: loads a jobs module and runs its handlers from the scheduler's queues until
// SIGTERM/SIGINT, then shuts down gracefully (running jobs finish up to the grace period, then abort).
//   bullbeat-worker <jobs-module> [--queues a,b] [--concurrency 10] [--grace-ms 30000] ...
import { Command, InvalidArgumentError } from 'commander';
import { createWorkerFromModule } from '../src/queue/create-worker-from-module.js';
import type { CreateWorkerOptions } from '../src/queue/worker-options.js';

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

const program = new Command()
  .name('bullbeat-worker')
  .description('Run the handlers of a bullbeat jobs module from its BullMQ queues')
  .argument('<jobs-module>', 'path to the jobs module (its default export is the SchedulerManager)')
  .option('--queues <names>', 'comma-separated queues (default: every queue of the schedules)')
  .option('--concurrency <n>', 'jobs run at once per queue', integer)
  .option('--grace-ms <ms>', 'on SIGTERM, how long running jobs may finish before they are aborted', integer)
  .option('--lease-ttl-ms <ms>', 'lease lifetime: a dead worker frees its slots this long after', integer)
  .option('--exclusion-wait-ms <ms>', 'default wait for a busy exclusion group', integer)
  .option('--rate-max <n>', 'queue rate limit: jobs per --rate-duration-ms (BullMQ limiter)', integer)
  .option('--rate-duration-ms <ms>', 'queue rate limit window', integer)
  .parse();

const flags = program.opts<{
  queues?: string;
  concurrency?: number;
  graceMs?: number;
  leaseTtlMs?: number;
  exclusionWaitMs?: number;
  rateMax?: number;
  rateDurationMs?: number;
}>();
const modulePath = program.args[0] as string;

const options: CreateWorkerOptions = {
  ...(flags.queues ? { queues: flags.queues.split(',').map((q) => q.trim()) } : {}),
  ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
  ...(flags.graceMs !== undefined ? { shutdownGraceMs: flags.graceMs } : {}),
  ...(flags.leaseTtlMs !== undefined ? { leaseTtlMs: flags.leaseTtlMs } : {}),
  ...(flags.exclusionWaitMs !== undefined ? { exclusionWaitMs: flags.exclusionWaitMs } : {}),
  ...(flags.rateMax !== undefined
    ? { limiter: { max: flags.rateMax, durationMs: flags.rateDurationMs ?? 1000 } }
    : {}),
};

const handle = await createWorkerFromModule(modulePath, options);
await handle.ready();
const logger = handle.scheduler.logger;
logger?.info({ queues: handle.queues }, 'bullbeat worker ready');
process.send?.({ type: 'ready', queues: handle.queues });

let signals = 0;
const stop = (signal: NodeJS.Signals) => {
  signals++;
  if (signals > 1) {
    logger?.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  logger?.info({ signal }, 'shutting down');
  handle.close().then(
    () => process.exit(0),
    (err: unknown) => {
      logger?.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
