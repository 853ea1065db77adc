import { type ConnectionOptions, Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import {
  bullConnection,
  type HandOver,
  handOverScheduler,
  openRedis,
  pendingInstant,
  queuePrefixFor,
  type RedisTarget,
  removeRepeatEntry,
  repeatEntries,
} from '../store/index.js';
import { type BullmqSchedule, parseLegacyKey } from './bullmq-import-plan.js';

/**
 * A BullMQ queue's job schedulers and legacy repeatable jobs, as `import:bullmq` reads and removes
 * them. The queue is read under the BullMQ prefix bullbeat enqueues to (`queuePrefixFor`: BullMQ's
 * default on a single Redis, `{bull:<queue>}` on a cluster), so that what is imported is what the
 * imported schedules feed.
 */
export class BullmqOriginals {
  readonly queue: Queue;
  private readonly redis: Redis;
  private readonly connection: ReturnType<typeof bullConnection>;

  constructor(
    target: RedisTarget,
    readonly queueName: string,
  ) {
    this.connection = bullConnection(target);
    const prefix = queuePrefixFor(target, queueName);
    this.queue = new Queue(queueName, {
      connection: this.connection as ConnectionOptions,
      ...(prefix !== undefined && { prefix }),
    });
    this.redis = openRedis(target, { maxRetriesPerRequest: 1 });
    // a connection error fails the command that waits on it, which the import reports
    this.redis.on('error', () => undefined);
  }

  /**
   * Every entry of the queue's `repeat` set, read one by one (BullMQ 6's `getJobSchedulers()` refuses
   * the whole list when one legacy entry is left, and deletes entries it cannot read: this reads and
   * writes nothing else).
   */
  async read(): Promise<BullmqSchedule[]> {
    const found: BullmqSchedule[] = [];
    for (const { key, next } of await repeatEntries(this.redis, this.queue.keys.repeat as string)) {
      let json: Awaited<ReturnType<Queue['getJobScheduler']>>;
      try {
        json = await this.queue.getJobScheduler(key);
      } catch {
        json = undefined; // a legacy key: BullMQ 6 refuses to read it
      }
      if (json) {
        found.push({
          // BullMQ counts iterations (`ic`) for job schedulers only.
          kind: json.iterationCount !== undefined ? 'job-scheduler' : 'legacy-repeatable',
          key,
          name: json.name,
          ...(json.pattern !== undefined && { pattern: json.pattern }),
          ...(json.tz !== undefined && { tz: json.tz }),
          ...(json.every !== undefined && { every: json.every }),
          ...(json.offset !== undefined && { offset: json.offset }),
          ...(json.limit !== undefined && { limit: json.limit }),
          ...(json.iterationCount !== undefined && { iterationCount: json.iterationCount }),
          ...(json.startDate !== undefined && { startDate: json.startDate }),
          ...(json.endDate !== undefined && { endDate: json.endDate }),
          ...(Number.isFinite(next) && { next }),
          ...(json.template?.data !== undefined && { data: json.template.data }),
          ...(json.template?.opts !== undefined && { opts: { ...json.template.opts } }),
        });
      } else {
        found.push(
          parseLegacyKey(key, Number.isFinite(next) ? next : undefined) ?? {
            kind: 'legacy-repeatable',
            key,
            name: key,
          },
        );
      }
    }
    return found;
  }

  /** The instant of a job scheduler's pending job (its next run), or null when it is gone. */
  pendingAt(schedulerId: string): Promise<number | null> {
    return pendingInstant(this.redis, this.queue.keys.repeat as string, schedulerId);
  }

  /** Jobs a job scheduler has made so far, its pending one included (BullMQ's `ic`); undefined when gone. */
  async iterations(schedulerId: string): Promise<number | undefined> {
    return (await this.queue.getJobScheduler(schedulerId))?.iterationCount;
  }

  /**
   * Removes a job scheduler while its pending job is still the one at `at`, in one step, and keeps that
   * job: it runs once as a plain delayed job (BullMQ makes no next one for a scheduler that is gone).
   * `moved-on` (nothing written) when its pending job is another by now, `gone` when there is none.
   */
  keepPending(schedulerId: string, at: number): Promise<HandOver> {
    return handOverScheduler(this.redis, this.queue.keys.repeat as string, schedulerId, at);
  }

  /**
   * Removes one original with what it has pending: a job scheduler with its pending delayed job
   * (`removeJobScheduler`), a legacy repeatable job's entry (BullMQ 6 never repeats it; a pending job
   * of it, if any, runs once). Idempotent: a missing entry is `gone`.
   */
  async remove(source: BullmqSchedule): Promise<'removed' | 'gone'> {
    if (source.kind === 'legacy-repeatable') {
      return (await removeRepeatEntry(this.redis, this.queue.keys.repeat as string, source.key))
        ? 'removed'
        : 'gone';
    }
    return (await this.queue.removeJobScheduler(source.key)) ? 'removed' : 'gone';
  }

  async close(): Promise<void> {
    await this.queue.close();
    if ('disconnect' in this.connection) (this.connection as Cluster).disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
