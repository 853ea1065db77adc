import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { IServerAdapter } from '@bull-board/api/typings/app';
import { ExpressAdapter } from '@bull-board/express';
import { type ConnectionOptions, Queue, QueueEvents } from 'bullmq';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { bullConnection } from '../src/store/index.js';

/** What the board needs to know; resolved by `createDashboard`. */
export interface QueueBoardOptions {
  /** Where Bull Board is served, mount path included (`/admin/queues`, `/ops/admin/queues`). */
  basePath: string;
  readOnly: boolean;
  connection: RedisOptions;
  /** BullMQ key prefix of the queues (BullMQ's default `bull` unless the scheduler says otherwise). */
  bullPrefix?: string;
  /** BullMQ key prefix of one queue when it depends on the queue (`{bull:<queue>}` on a Redis Cluster); wins over `bullPrefix`. */
  bullPrefixFor?: (queue: string) => string | undefined;
  /** Every queue the schedules use (cheap: served from the schedule index). */
  discover: () => Promise<string[]>;
  /** Re-discover at most this often (ms). */
  refreshMs: number;
  logger: Logger;
  /** Called for each finished occurrence job, when given (run-duration metrics). */
  onRunFinished?: (outcome: 'succeeded' | 'failed', durationMs: number) => void;
  now?: () => number;
}

interface Mounted {
  queue: Queue;
  events?: QueueEvents;
}

/**
 * Bull Board (`@bull-board/express` + `BullMQAdapter`) for every queue that bullbeat's schedules use.
 * Queues are discovered from the schedules and the list is re-checked, at most every `refreshMs`,
 * before each request to the board, so queues of schedules added later appear without a restart.
 */
export class QueueBoard {
  readonly serverAdapter = new ExpressAdapter();
  private readonly board: ReturnType<typeof createBullBoard>;
  private readonly mounted = new Map<string, Mounted>();
  private checkedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: QueueBoardOptions) {
    this.now = options.now ?? Date.now;
    this.serverAdapter.setBasePath(options.basePath);
    this.board = createBullBoard({
      queues: [],
      // @bull-board/express pins its own copy of @bull-board/api (9.10.1 beside our 9.10.2): same shape
      serverAdapter: this.serverAdapter as unknown as IServerAdapter,
      options: {
        uiConfig: {
          boardTitle: 'bullbeat queues',
          // Relative to Bull Board's <base href> (`<dashboard>/admin/queues/`): the dashboard's home,
          // wherever the dashboard is mounted.
          miscLinks: [{ text: 'Schedules', url: '../../' }],
        },
      },
    });
  }

  /** Queue names shown on the board now. */
  get queueNames(): string[] {
    return [...this.mounted.keys()].sort();
  }

  /** Add the queues of new schedules (at most every `refreshMs`; concurrent callers share the work). */
  refresh(force = false): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!force && this.now() - this.checkedAt < this.options.refreshMs) return Promise.resolve();
    this.refreshing ??= this.discover().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async discover(): Promise<void> {
    const names = await this.options.discover();
    this.checkedAt = this.now();
    for (const name of names) {
      if (this.mounted.has(name) || this.closed) continue;
      const bullPrefix = this.prefixOf(name);
      const connection = this.connect();
      const queue = new Queue(name, { connection, ...(bullPrefix !== undefined && { prefix: bullPrefix }) });
      queue.on('error', (err) => this.options.logger.warn({ err, queue: name }, 'dashboard: queue error'));
      const mounted: Mounted = { queue };
      if (this.options.onRunFinished) mounted.events = this.watch(name, queue);
      this.mounted.set(name, mounted);
      this.board.addQueue(new BullMQAdapter(queue, { readOnlyMode: this.options.readOnly }));
    }
  }

  /** Run durations of occurrence jobs, from the queue's event stream. */
  private watch(name: string, queue: Queue): QueueEvents {
    const bullPrefix = this.prefixOf(name);
    const connection = this.connect();
    const events = new QueueEvents(name, {
      connection,
      ...(bullPrefix !== undefined && { prefix: bullPrefix }),
    });
    events.on('error', (err) =>
      this.options.logger.warn({ err, queue: name }, 'dashboard: queue events error'),
    );
    const report =
      (outcome: 'succeeded' | 'failed') =>
      async ({ jobId }: { jobId: string }) => {
        try {
          const job = await queue.getJob(jobId);
          const data = job?.data as { scheduleId?: unknown } | undefined;
          if (!job || typeof data?.scheduleId !== 'string' || !job.processedOn || !job.finishedOn) return;
          this.options.onRunFinished?.(outcome, job.finishedOn - job.processedOn);
        } catch {
          // the job was removed already: nothing to measure
        }
      };
    events.on('completed', report('succeeded'));
    events.on('failed', report('failed'));
    return events;
  }

  /** Express middleware to put before the board's router: keeps the queue list current. */
  middleware(): RequestHandler {
    return (_req: Request, _res: Response, next: NextFunction) => {
      this.refresh().then(() => next(), next);
    };
  }

  router(): RequestHandler {
    return this.serverAdapter.getRouter() as RequestHandler;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.refreshing?.catch(() => undefined);
    const all = [...this.mounted.values()];
    this.mounted.clear();
    await Promise.allSettled(all.flatMap((m) => [m.queue.close(), ...(m.events ? [m.events.close()] : [])]));
    for (const c of this.clients.splice(0)) c.disconnect();
  }

  /** Cluster clients made for BullMQ (it does not close a client it was given). */
  private readonly clients: { disconnect(): void }[] = [];

  private prefixOf(queue: string): string | undefined {
    return this.options.bullPrefixFor?.(queue) ?? this.options.bullPrefix;
  }

  /** The options on a single Redis; a new cluster client on a Redis Cluster. */
  private connect(): ConnectionOptions {
    const c = bullConnection(this.options.connection);
    if (c !== this.options.connection) this.clients.push(c as { disconnect(): void });
    return c as ConnectionOptions;
  }
}
