import type { Queue } from 'bullmq';
import { type OwedRunsContext, OwedRunsSweeper } from '../backfill/index.js';
import { type ReplicaDeps, ReplicaRole } from './replica-role.js';

/**
 * What runs while a manager of role `scheduler` is started: the replica's role (the fire loop, the
 * outcomes of plain Workers, orphans and pruning) and the sweeper of owed runs.
 */
export class Firing {
  private constructor(
    readonly replica: ReplicaRole,
    /** Enqueues the catch-up and backfill runs whose taker did not. */
    private readonly owedSweeper: OwedRunsSweeper,
  ) {}

  /**
   * Start firing. The queues of its code schedules are connected before the first claim: the first
   * occurrence after a start is not late by a connection's set-up (hundreds of ms on a cluster).
   */
  static async start(deps: ReplicaDeps, queues: Iterable<Queue>, owedRuns: OwedRunsContext): Promise<Firing> {
    await Promise.all([...queues].map((q) => q.waitUntilReady().catch(() => undefined)));
    const replica = new ReplicaRole(deps);
    await replica.start();
    const lease = deps.options.claimLeaseMs;
    const sweeper = new OwedRunsSweeper(owedRuns, deps.keys.partitions, lease, lease, deps.logger);
    sweeper.start();
    return new Firing(replica, sweeper);
  }

  async stop(): Promise<void> {
    await this.owedSweeper.stop();
    await this.replica.stop();
  }
}
