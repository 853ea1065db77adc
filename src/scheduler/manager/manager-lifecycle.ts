import { checkQueueOwner } from '../../store/index.js';
import type { ScheduledJob } from '../contract/index.js';
import type { FireLoopFootprint, FireLoopStats } from '../fire/index.js';
import { Firing } from './firing.js';
import type { ManagerContexts } from './manager-contexts.js';

/**
 * A manager's start and stop: the code's schedules upserted, then, in the scheduler role, firing;
 * concurrent calls share one promise, and a start waits for a stop under way.
 */
export class ManagerLifecycle {
  /** The scheduler role's fire loop and sweeper, while started. */
  private firing: Firing | undefined;
  private lastLoopStats: FireLoopStats | undefined;
  private started = false;
  private startedAt = 0;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly contexts: ManagerContexts,
    /** Upsert a code schedule (at start). */
    private readonly persistCode: (job: ScheduledJob) => Promise<void>,
  ) {}

  start(): Promise<void> {
    if (this.started) return Promise.resolve();
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const { options, manager, connections, schedules } = this.contexts.parts;
    await this.stopping;
    await connections.checkPartitions(true);
    if (options.role === 'scheduler') {
      // enqueueing onto a queue another deployment's workers serve would hand them this one's jobs
      await Promise.all(
        [...schedules.queues()].map((q) =>
          checkQueueOwner(connections.redis, connections.queuePrefix(q), q, options.prefix),
        ),
      );
    }
    const code = schedules.code();
    for (let i = 0; i < code.length; i += 500) {
      await Promise.all(code.slice(i, i + 500).map((j) => (j.saved = this.persistCode(j))));
    }
    await Promise.allSettled([...schedules.byId.values()].map((j) => j.saved));
    if (options.role === 'scheduler') {
      const queues = [...schedules.queues()].map((q) => this.contexts.queue(q));
      this.firing = await Firing.start(this.contexts.replica, queues, this.contexts.owedRuns);
    }
    this.started = true;
    this.startedAt = options.clock();
    manager.logger.info(
      { schedules: schedules.byId.size, managerRole: options.role },
      'bullbeat: scheduler started',
    );
  }

  stop(): Promise<void> {
    if (!this.started && !this.starting) return this.stopping ?? Promise.resolve();
    this.stopping ??= this.doStop().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.started = false;
    await this.firing?.stop();
    this.lastLoopStats = this.firing?.replica.stats;
    this.firing = undefined;
    await this.contexts.parts.connections.close();
    this.contexts.parts.manager.logger.info('bullbeat: scheduler stopped');
  }

  async close(): Promise<void> {
    if (this.started || this.starting) return this.stop();
    await this.contexts.parts.connections.close();
  }

  /** True between a completed `start()` and `stop()`. */
  get running(): boolean {
    return this.started;
  }

  /** Seconds since the start completed; 0 while stopped. */
  get uptime(): number {
    return this.started ? (this.contexts.parts.options.clock() - this.startedAt) / 1000 : 0;
  }

  get footprint(): FireLoopFootprint | undefined {
    return this.firing?.replica.footprint;
  }

  get stats(): FireLoopStats | undefined {
    return this.firing?.replica.stats ?? this.lastLoopStats;
  }

  /** Drop the schedule's occurrences this replica claimed ahead and has not enqueued. */
  stopSchedule(id: string): void {
    this.firing?.replica.stopSchedule(id);
  }
}
