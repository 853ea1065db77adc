// A worker started with another partition count than the deployment recorded refuses to start: with
// it, it would take leases and write records under keys that no scheduler or other worker reads.
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { createWorker } from '../../src/queue/create-worker.js';
import { keys } from '../../src/store/keys/keys.js';
import { TestBed } from './helpers.js';
import { StandInScheduler } from './stand-in-scheduler.js';

let bed: TestBed;
afterEach(async () => {
  await bed.cleanup();
});

/** A stand-in scheduler of `partitions` partitions. */
function scheduler(partitions: number) {
  const s = new StandInScheduler(bed.prefix, [bed.queueName]).register('job', () => undefined);
  return Object.assign(s, { partitions });
}

describe('the partition count of a worker', () => {
  it('another count than the recorded one: createWorker fails with a ConfigError naming both counts', async () => {
    bed = new TestBed();
    await bed.redis.set(keys(bed.prefix).partitionCount, '1');
    const err = (await createWorker(scheduler(4)).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.setting).toBe('BULLBEAT_PARTITIONS');
    expect(err.message).toMatch(/\b1 partition/);
    expect(err.message).toMatch(/\b4\b/);
    expect(await bed.redis.get(keys(bed.prefix).partitionCount)).toBe('1');
  });

  it('the first process of a deployment records its count; the same count starts', async () => {
    bed = new TestBed();
    const worker = await createWorker(scheduler(4));
    await worker.close();
    expect(await bed.redis.get(keys(bed.prefix).partitionCount)).toBe('4');
    const again = await createWorker(scheduler(4));
    await again.close();
    await expect(createWorker(scheduler(1))).rejects.toBeInstanceOf(ConfigError);
  });
});
