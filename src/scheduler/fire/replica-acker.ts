import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectionOfKey, type ReplicaAcksOptions, waitForReplicas } from '../../store/index.js';
import type { FireLoopStats } from './fire-loop-types.js';

/**
 * `replicaAcks` for the fire loop: after an enqueue's adds, `WAIT` on each queue's master connection,
 * the one its adds went on (Redis counts a `WAIT` against the writes of the connection it arrives on).
 * The connection is looked up after the adds, not before: an add that met a failover was redirected
 * and refreshed the slot map, so the map then names the master that took it (looked up before, a
 * stale map named a dead node and failed every enqueue of that queue until ioredis refreshed it:
 * 230 occurrences lost in one measured run). A `WAIT` that fails (its master died) fails the enqueue;
 * fewer acknowledgements than asked within the timeout are counted, and the enqueue goes on.
 */
export class ReplicaAcker {
  constructor(
    private readonly acks: ReplicaAcksOptions,
    private readonly queueOf: (name: string) => Queue,
    private readonly stats: FireLoopStats,
    private readonly logger: Logger,
  ) {}

  async wait(queues: readonly string[]): Promise<void> {
    await Promise.all(
      queues.map(async (name) => {
        const queue = this.queueOf(name);
        // BullMQ's Redis backend hands out its ioredis client (a Cluster on a cluster)
        const client = (await queue.getBackend().client) as unknown as Redis;
        const node = connectionOfKey(client, queue.toKey(''));
        this.stats.replicaWaits++;
        const acked = await waitForReplicas(node, this.acks.replicas, this.acks.timeoutMs);
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
