import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { subscribeTo } from '../store/index.js';

/**
 * Listens on a deployment's cancel channel (`keys.cancel`) for the lease ids of runs asked to stop by
 * a newer occurrence (`overlap: 'cancelOther'`, published by start-runs), and calls the watcher of each
 * one running here. One subscriber connection per channel, opened at the first watch. A message missed
 * (sent before the subscription) is caught by the lease renewal, which reads the same `cancelled` set.
 */
export class CancelWatch {
  private readonly watchers = new Map<string, () => void>();
  private readonly channels = new Map<string, Promise<unknown>>();
  private subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Call `onCancel` when `leaseId` is asked to stop on `channel`; returns the unwatch. */
  watch(channel: string, leaseId: string, onCancel: () => void): () => void {
    this.watchers.set(leaseId, onCancel);
    if (!this.channels.has(channel)) {
      this.subscriber ??= this.open();
      const subscribed = subscribeTo(this.subscriber, channel).catch((err: unknown) => {
        this.channels.delete(channel);
        this.logger.warn(
          { err, channel },
          'could not subscribe to the cancel channel; renewals still see it',
        );
      });
      this.channels.set(channel, subscribed);
    }
    return () => {
      this.watchers.delete(leaseId);
    };
  }

  async close(): Promise<void> {
    const s = this.subscriber;
    this.subscriber = undefined;
    this.channels.clear();
    if (s) await s.quit().catch(() => s.disconnect());
  }

  private open(): Redis {
    const s = this.redis.duplicate();
    s.on('error', (err) => this.logger.warn({ err }, 'redis connection error (cancel channel)'));
    s.on('message', (_channel: string, leaseId: string) => this.watchers.get(leaseId)?.());
    return s;
  }
}
