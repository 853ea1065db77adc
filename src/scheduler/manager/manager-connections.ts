import { type ConnectionOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AuditConfig, Keys, ManualRunStore, RecordLane } from '../../store/index.js';
import {
  bullConnection,
  checkDeployment,
  openRedis,
  queuePrefixFor,
  type RedisTarget,
  RunHistory,
  ScheduleStore,
  subscribeTo,
  unsubscribeAll,
  withCommandTimeout,
} from '../../store/index.js';
import type { ResolvedManagerOptions } from '../contract/index.js';
import { RESUBSCRIBED } from '../fire/index.js';
import type { RunHistoryAccess } from './scheduler-manager-types.js';

/**
 * The connections of one manager, each made on first use: its Redis client (and the store and history
 * over it), the wake-channel subscriber, and one BullMQ `Queue` per queue name. `close()` ends them
 * all; the next use connects again.
 */
export class ManagerConnections {
  private readonly queues = new Map<string, Queue>();
  private _redis: Redis | undefined;
  private _alertsRedis: Redis | undefined;
  private _store: ScheduleStore | undefined;
  private _history: RunHistoryAccess | undefined;
  private subscriber: Redis | undefined;

  /** The wake-channel subscriber connection, once made (tests cut it to check a reconnect). */
  get wakeSubscriber(): Redis | undefined {
    return this.subscriber;
  }
  /** Listeners of the wake channel: one subscriber connection serves them all. */
  private readonly wakeListeners = new Set<(message: string) => void>();
  private subscribing: Promise<Redis> | undefined;
  /** The deployment holds this manager's partition count and this release's data format (checked until it does). */
  private partitionsChecked = false;
  /** Cluster clients made for BullMQ queues (BullMQ does not close a connection it was given). */
  private readonly bullClients: { disconnect(): void; quit(): Promise<unknown> }[] = [];

  constructor(
    private readonly options: ResolvedManagerOptions,
    private readonly keys: Keys,
    /** Read at each use: the CLI may give the manager another logger after it is made. */
    private readonly log: () => Logger,
  ) {}

  /**
   * What BullMQ queues and workers connect with (`maxRetriesPerRequest: null`, as BullMQ workers
   * need); on a Redis Cluster it carries `cluster` (make clients of it with `openRedis`).
   */
  connectionOptions(): RedisTarget {
    return this.options.target;
  }

  /** BullMQ's key prefix of a queue (`{bull:<queue>}` on a cluster; BullMQ's default otherwise). */
  queuePrefix(queue: string): string | undefined {
    return queuePrefixFor(this.options.target, queue);
  }

  get redis(): Redis {
    if (!this._redis) {
      this._redis = withCommandTimeout(openRedis(this.connectionOptions()), this.options.commandTimeoutMs);
      this._redis.on('error', (err) => this.log().warn({ err: err.message }, 'bullbeat: redis error'));
    }
    return this._redis;
  }

  /**
   * The alerts' own client (the expectations watch, the outbox, the heartbeat): their reads, a few a
   * second, never wait in line behind the fire loop's claims and completions on `redis` (a replica
   * taking over a dead one's claims sends many), nor those behind them.
   */
  get alertsRedis(): Redis {
    if (!this._alertsRedis) {
      this._alertsRedis = withCommandTimeout(
        openRedis(this.connectionOptions()),
        this.options.commandTimeoutMs,
      );
      this._alertsRedis.on('error', (err) => this.log().warn({ err: err.message }, 'bullbeat: redis error'));
    }
    return this._alertsRedis;
  }

  /**
   * Check the deployment's data format and partition count before a use of its schedules (a
   * `DataFormatError` when its format is newer than this release's, a `ConfigError` when it recorded
   * another count; see `checkDeployment`): `write` records both when none is, and upgrades an older
   * format. Once both are settled, no more round trips.
   */
  async checkPartitions(write: boolean): Promise<void> {
    if (!this.partitionsChecked) {
      this.partitionsChecked = await checkDeployment(this.redis, this.keys, write);
    }
  }

  get store(): ScheduleStore {
    this._store ??= new ScheduleStore(this.redis, this.keys, this.options.historyLimit, this.audit);
    return this._store;
  }

  /** The audit trails' bounds (`auditLimit`, `auditRetentionMs`). */
  get audit(): AuditConfig {
    return { limit: this.options.auditLimit, retentionMs: this.options.auditRetentionMs };
  }

  /** Where a manual run is recorded with its audit entry. */
  get manualRunStore(): ManualRunStore {
    return { redis: this.redis, keys: this.keys, historyLimit: this.options.historyLimit, audit: this.audit };
  }

  /** The bounded run history; also callable: `history(id, limit?)` → newest records first. */
  get history(): RunHistoryAccess {
    if (!this._history) {
      const rh = new RunHistory(this.redis, this.keys, this.options.historyLimit);
      const fn = (scheduleId: string, limit?: number) => rh.list(scheduleId, limit);
      Object.setPrototypeOf(fn, rh);
      // a scheduled occurrence coalesced in a span has no record of its own: read it as `list` shows it
      Object.assign(fn, {
        get: (scheduleId: string, fireAt: number, manual: RecordLane = false) =>
          manual ? rh.get(scheduleId, fireAt, manual) : rh.find(scheduleId, fireAt),
      });
      this._history = fn as RunHistoryAccess;
    }
    return this._history;
  }

  /** The BullMQ queue of a name (created on first use). */
  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      const connection = bullConnection(this.connectionOptions());
      if (connection !== this.connectionOptions()) this.bullClients.push(connection as unknown as Redis);
      const prefix = this.queuePrefix(name);
      q = new Queue(name, {
        connection: connection as ConnectionOptions,
        ...(prefix !== undefined && { prefix }),
      });
      q.on('error', (err) => this.log().warn({ err: err.message, queue: name }, 'bullbeat: queue error'));
      this.queues.set(name, q);
    }
    return q;
  }

  /**
   * Subscribe to the wake channel; returns the unsubscribe. One subscriber connection serves every
   * listener (a fire loop per partition). On a cluster, PUBLISH reaches every node, so the node the
   * subscriber happens to be on hears every message.
   */
  async subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>> {
    this.wakeListeners.add(onMessage);
    this.subscribing ??= (async () => {
      const sub = this.redis.duplicate();
      sub.on('error', (err) => this.log().warn({ err: err.message }, 'bullbeat: redis subscriber error'));
      this.subscriber = sub;
      sub.on('message', (_channel, message: string) => {
        for (const l of this.wakeListeners) l(message);
      });
      // after a reconnect (ioredis subscribes again by itself), what was published meanwhile is lost:
      // the listeners hear `resubscribed` and look again at what a lost notice would have changed
      let connected = false;
      sub.on('ready', () => {
        if (connected) for (const l of this.wakeListeners) l(RESUBSCRIBED);
        connected = true;
      });
      await subscribeTo(sub, this.keys.wake);
      return sub;
    })();
    const sub = await this.subscribing;
    return async () => {
      this.wakeListeners.delete(onMessage);
      if (this.wakeListeners.size === 0 && this.subscriber === sub) {
        this.subscribing = undefined;
        await unsubscribeAll(sub).catch(() => undefined);
      }
    };
  }

  /** Close every queue and client. */
  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined)));
    this.queues.clear();
    const clients = [this.subscriber, this._redis, this._alertsRedis, ...this.bullClients.splice(0)].filter(
      (c): c is Redis => c !== undefined,
    );
    this.subscriber = undefined;
    this.subscribing = undefined;
    this.wakeListeners.clear();
    this._redis = undefined;
    this._alertsRedis = undefined;
    this._store = undefined;
    this._history = undefined;
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
