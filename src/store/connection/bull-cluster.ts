import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';

/** What `super` takes: the same options, with ioredis's default (legacy) reply mapping. */
type LegacyOptions = ClusterOptions & {
  redisOptions?: ClusterOptions['redisOptions'] & { replyMapping?: 'legacy' };
};

// clients owed an `end` (not a private field: ioredis's constructor calls connect() before a
// subclass's fields exist)
const endOwed = new WeakSet<Cluster>();
const LIVE = new Set(['connecting', 'connect', 'ready']);

/** The `connect()` calls of a client not settled yet (a module map, for the same reason as `endOwed`). */
const connectWaiters = new WeakMap<Cluster, Set<{ resolve: () => void; reject: (err: Error) => void }>>();

/**
 * A client's unsettled `connect()` calls, with the two listeners that settle them made at its first call:
 * each `ready` resolves them all; a real end (status `end`, not the `end` a revived client emits)
 * rejects them. One pair of listeners however many attempts an outage orphans.
 */
function waitersOf(client: Cluster) {
  let waiters = connectWaiters.get(client);
  if (!waiters) {
    const all = new Set<{ resolve: () => void; reject: (err: Error) => void }>();
    waiters = all;
    connectWaiters.set(client, all);
    client.on('ready', () => {
      for (const w of [...all]) w.resolve();
      all.clear();
    });
    client.on('end', () => {
      if (client.status !== 'end') return;
      for (const w of [...all]) w.reject(new Error('Connection is closed.'));
      all.clear();
    });
  }
  return waiters;
}

/**
 * The ioredis `Cluster` handed to BullMQ's objects, whose manual disconnect always ends with `end`.
 *
 * BullMQ 6.7 resets a Worker's blocking connection when its `BZPOPMIN` outlives its timeout (the
 * node it waited on died): it calls `disconnect()` and waits for `end`. Beside that wait the
 * client can come back to life before its `end`: BullMQ's own recovery of an emptied node pool
 * calls `connect()`, or a slots refresh in flight when the pool was reset fills it again. Then
 * `end` never comes, and the worker's fetch loop waits forever: running, not paused, taking no
 * job, while jobs pile up (4 of 11 SIGKILLs of the queue slot's master under CPU load,
 * test/cluster/failover; 0 of 12 with this class).
 *
 * Here a client that comes back to life after a manual disconnect, before its `end`, emits that
 * `end`: the disconnected life of the client did end, and whoever waited for it goes on to
 * reconnect, which finds the client connecting or ready. `duplicate()` (BullMQ's blocking
 * connection) keeps the class. And its `connect()` settles once the client is ready, even when
 * ioredis gave up on that attempt and reconnected by itself (see `connect`).
 */
export class BullCluster extends Cluster {
  constructor(nodes: ClusterNode[], options?: ClusterOptions) {
    super(nodes, options as LegacyOptions);
    // BullMQ's blocking connection is a duplicate: it keeps the class (ioredis's own duplicate makes
    // a plain Cluster; its generic signature is assigned, not overridden)
    Object.assign(this, {
      duplicate: (overrideNodes: ClusterNode[] = [], overrideOptions: ClusterOptions = {}) => {
        const options: ClusterOptions = { ...this.options, ...overrideOptions };
        if (this.options.redisOptions && overrideOptions.redisOptions)
          options.redisOptions = { ...this.options.redisOptions, ...overrideOptions.redisOptions };
        return new BullCluster(overrideNodes.length > 0 ? overrideNodes : nodes.slice(0), options);
      },
    });
    this.on('end', () => endOwed.delete(this));
    // revived before its end (a connect(), or a slots refresh in flight when the pool was reset):
    // the waiter for `end` hears it now
    const revived = () => {
      if (LIVE.has(this.status) && endOwed.delete(this)) this.emit('end');
    };
    for (const status of LIVE) this.on(status, revived);
  }

  override disconnect(reconnect = false): void {
    if (!reconnect && this.status !== 'end') endOwed.add(this);
    super.disconnect(reconnect);
  }

  /**
   * ioredis's `connect()`, settled by the client's next `ready` too. When an attempt's ready check
   * fails (`CLUSTER INFO` says `cluster_state:fail`: right after a master died, before its replica
   * is promoted), ioredis reconnects on its own and leaves that attempt's promise pending for good,
   * though the client gets ready later. BullMQ 6.7 awaits it when it reconnects its blocking
   * connection (`RedisConnection.reconnect`), and the worker's fetch loop waited with it: running,
   * taking no job (test/cluster/failover, the queue slot's master SIGKILLed, under CPU load). A real
   * end (status `end`; not the one a revived client emits above) rejects it.
   */
  override connect(): Promise<void> {
    const attempt = super.connect();
    const waiters = waitersOf(this);
    return new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      waiters.add(waiter);
      attempt.then(
        () => {
          waiters.delete(waiter);
          resolve();
        },
        (err: unknown) => {
          waiters.delete(waiter);
          reject(err);
        },
      );
    });
  }
}
