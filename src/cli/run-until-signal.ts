import type { Logger } from 'pino';
import { ExitCode } from './exit-codes.js';

/** Stops what a long-running command started; resolves once everything is closed. */
export type Stop = () => Promise<void>;

/** Options of `runUntilSignal`. */
export interface RunUntilSignalOptions {
  /** How long stopping may take before the process gives up and exits 1. Default: 45 000 ms. */
  stopDeadlineMs?: number;
}

/**
 * Runs a long-running command: calls `start`, waits for SIGINT or SIGTERM, then calls the returned
 * `stop`. Resolves with exit code 0 after a clean stop, 1 when stopping failed or overran its deadline.
 * A second signal while stopping exits 1 at once. A signal that arrives while starting is honoured
 * as soon as `start` returns.
 */
export async function runUntilSignal(
  logger: Logger,
  start: () => Promise<Stop>,
  options: RunUntilSignalOptions = {},
): Promise<number> {
  const stopDeadlineMs = options.stopDeadlineMs ?? 45_000;
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    signalled = resolve;
  });
  let count = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    count++;
    if (count > 1) {
      logger.warn({ signal }, 'second signal while stopping: exiting now');
      process.exit(ExitCode.failure);
    }
    signalled(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const stop = await start();
    const signal = await received;
    logger.info({ signal }, 'shutting down');
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<'overdue'>((resolve) => {
      timer = setTimeout(() => resolve('overdue'), stopDeadlineMs);
      timer.unref();
    });
    try {
      const result = await Promise.race([stop().then(() => 'stopped' as const), overdue]);
      if (result === 'overdue') {
        logger.error({ stopDeadlineMs }, 'shutdown did not finish in time');
        return ExitCode.failure;
      }
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      return ExitCode.failure;
    } finally {
      clearTimeout(timer);
    }
    logger.info('stopped cleanly');
    return ExitCode.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
