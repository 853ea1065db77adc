import type { Redis } from 'ioredis';
import { ConfigError } from '../../errors/config-error.js';
import type { Keys } from './keys.js';

/**
 * Check this process's partition count against the one its deployment recorded (`keys.partitionCount`,
 * one key per prefix): a schedule's keys are found by hashing its id over that count, so a process with
 * another count would write schedules, leases and records where no other process reads them, and read
 * nothing of theirs. `record`: a process that writes (a scheduler, a worker, a manager's write) records
 * its count when none is (`SET NX`); a read records nothing, so that a look at a mistyped prefix leaves
 * no deployment behind.
 *
 * True when the deployment holds this count, false when none is recorded (a read), and a `ConfigError`
 * on `BULLBEAT_PARTITIONS` naming both counts when it holds another.
 */
export async function checkPartitionCount(redis: Redis, k: Keys, record: boolean): Promise<boolean> {
  if (record && (await redis.set(k.partitionCount, String(k.partitions), 'NX')) === 'OK') return true;
  const stored = await redis.get(k.partitionCount);
  if (stored === null) return false;
  const count = Number(stored);
  if (count === k.partitions) return true;
  throw new ConfigError(
    'BULLBEAT_PARTITIONS',
    `this deployment records ${stored} partition${count === 1 ? '' : 's'} (${k.partitionCount}), this process has ${k.partitions}: ` +
      `set BULLBEAT_PARTITIONS=${stored} (or the partitions option) in every process of the deployment ` +
      '(changing the count needs the schedules moved, which bullbeat does not do)',
  );
}
