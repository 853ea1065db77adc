import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectionOfKey, type ReplicaAcksOptions } from '../store/replica-acks.js';
import type { FireLoopStats } from './fire-loop-types.js';

/** The master connection of each queue an enqueue adds to, taken before the adds. */
export type AckMarks = Map<string, { queue: Queue; client: Redis; node: Redis }>;

/**
 * `replicaAcks` for the fire loop: `mark` the queues' master connections before an enqueue's adds,
 * `wait` after them: `WAIT` on each of those connections (Redis counts a `WAIT` against the writes of
 * the connection it arrives on). A queue whose master changed between the two (a failover moved its
 * slot) fails the enqueue: its adds may be on the old master only, and a `WAIT` on the new one would
 * not see them. Fewer acknowledgements than asked within the timeout are counted, and the enqueue goes on.
 */
export class ReplicaAcker {
  constructor(
    private readonly acks: ReplicaAcksOptions,
    private readonly queueOf: (name: string) => Queue,
    private readonly stats: FireLoopStats,
    private readonly logger: Logger,
  ) {}

  async mark(queues: readonly string[]): Promise<AckMarks> {
    const marks: AckMarks = new Map();
    for (const name of queues) {
      const queue = this.queueOf(name);
      // BullMQ's Redis backend hands out its ioredis client (a Cluster on a cluster)
      const client = (await queue.getBackend().client) as unknown as Redis;
      marks.set(name, { queue, client, node: connectionOfKey(client, queue.toKey('')) });
    }
    return marks;
  }

  async wait(marks: AckMarks): Promise<void> {
    await Promise.all(
      [...marks].map(async ([name, { queue, client, node }]) => {
        if (connectionOfKey(client, queue.toKey('')) !== node) {
          throw new Error(
            `bullbeat: replicaAcks: the master of queue "${name}" changed during the enqueue; its occurrences are claimed again`,
          );
        }
        this.stats.replicaWaits++;
        const acked = Number(await node.wait(this.acks.replicas, this.acks.timeoutMs));
        if (acked < this.acks.replicas && this.stats.underAcked++ === 0) {
          this.logger.warn(
            { queue: name, acked, asked: this.acks.replicas, timeoutMs: this.acks.timeoutMs },
            'bullbeat: replicaAcks: an enqueue was acknowledged by fewer replicas than asked (counted in bullbeat_replica_acks_short_total; warned once)',
          );
        }
      }),
    );
  }
}
