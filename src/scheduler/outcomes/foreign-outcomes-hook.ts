import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Keys } from '../../store/index.js';
import { withCommandTimeout } from '../../store/index.js';
import type { ResolvedManagerOptions } from '../contract/index.js';
import { ForeignOutcomes } from './foreign-outcomes.js';

/** The parts of a `SchedulerManager` that foreign-outcome recording uses. */
export interface ForeignOutcomesManager {
  readonly redis: Redis;
  readonly keys: Keys;
  readonly prefix: string;
  readonly logger: Logger;
  readonly options: ResolvedManagerOptions;
  connectionOptions(): RedisOptions;
}

/**
 * Start recording foreign consumers' outcomes for a scheduler replica (unless turned off): listen to
 * every queue schedules target, and to every queue this replica fires into from now on.
 */
export async function startForeignOutcomes(
  manager: ForeignOutcomesManager,
): Promise<{ stop(): Promise<void> } | undefined> {
  const options = manager.options.foreignOutcomes;
  if (!options.enabled) return undefined;
  // A connection of its own: after a burst, its reads of a thousand records and jobs and its writes
  // would otherwise queue the fire loop's next claim and completions behind them on the manager's.
  const redis = withCommandTimeout(manager.redis.duplicate(), manager.options.commandTimeoutMs);
  // (a duplicate has none of the original's listeners: ioredis prints an 'error' emitted with none)
  redis.on('error', (err) =>
    manager.logger.warn({ err: err.message }, 'bullbeat: redis error (foreign outcomes)'),
  );
  const foreign = new ForeignOutcomes({
    redis,
    keys: manager.keys,
    prefix: manager.prefix,
    historyLimit: manager.options.historyLimit,
    logger: manager.logger,
    options,
    connection: manager.connectionOptions(),
  });
  try {
    await foreign.start();
  } catch (err) {
    manager.logger.warn({ err }, 'bullbeat: listening for foreign outcomes failed; reconciliation goes on');
  }
  return {
    async stop() {
      await foreign.stop();
      redis.disconnect();
    },
  };
}
