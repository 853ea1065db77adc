import { randomUUID } from 'node:crypto';
import { type JobsOptions, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { type OccurrenceJobData, occurrenceJobId } from '../../src/store/forms/job-payload.js';
import type { EarlierRunOptions } from '../../src/store/forms/run-options.js';
import { hashTag } from '../../src/store/keys/keys.js';
import { REDIS } from '../redis-url.js';
import { waitUntil } from '../wait-until.js';

export { REDIS } from '../redis-url.js';

/** A fresh prefix and queue name for one test, and the clients to reach them. */
export class TestBed {
  readonly id = randomUUID().slice(0, 8);
  readonly prefix = `bbtest-${this.id}`;
  readonly queueName = `bbq-${this.id}`;
  readonly redis = new Redis(REDIS);
  readonly queue = new Queue(this.queueName, { connection: REDIS });

  /** Enqueue one occurrence of `name` as the scheduler would. */
  async enqueue(
    name: string,
    options: {
      scheduleId?: string;
      fireAt?: number;
      args?: unknown[];
      /** As an earlier release wrote it (no `slot`: the worker reads the rule once), unless it gives one. */
      run?: EarlierRunOptions;
      kind?: OccurrenceJobData['kind'];
      opts?: JobsOptions;
    } = {},
  ) {
    const scheduleId = options.scheduleId ?? name;
    const fireAt = options.fireAt ?? Date.now();
    const kind = options.kind ?? 'scheduled';
    const data: OccurrenceJobData = {
      scheduleId,
      fireAt,
      kind,
      args: options.args ?? [],
      prefix: this.prefix,
      run: { maxInstances: 1, coalesce: true, ...options.run } as OccurrenceJobData['run'],
    };
    return this.queue.add(name, data, {
      jobId: occurrenceJobId(scheduleId, fireAt, kind === 'manual'),
      ...options.opts,
    });
  }

  /** Wait until every job of `ids` has completed or failed. */
  async allSettled(ids: (string | undefined)[], timeoutMs = 40_000): Promise<void> {
    await waitUntil(
      async () => {
        const states = await Promise.all(ids.map((id) => this.queue.getJobState(id as string)));
        return states.every((s) => s === 'completed' || s === 'failed');
      },
      timeoutMs,
      { what: 'every job to settle' },
    );
  }

  async cleanup(): Promise<void> {
    await this.queue.obliterate({ force: true }).catch(() => {});
    await this.queue.close();
    const keys = await this.redis.keys(`${hashTag(this.prefix)}*`);
    const extra = await this.redis.keys(`${this.prefix}:*`);
    if (keys.length + extra.length) await this.redis.del(...keys, ...extra);
    await this.redis.quit();
  }
}
