import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One store per process, shared by every copy of bullbeat loaded in it: a jobs module built against
 * the package (`dist/`) while the CLI runs from another copy (the sources, through tsx) reads it too.
 */
const KEY = Symbol.for('bullbeat.managerEnv');
const holder = globalThis as { [KEY]?: AsyncLocalStorage<NodeJS.ProcessEnv> };
const scoped = () => (holder[KEY] ??= new AsyncLocalStorage<NodeJS.ProcessEnv>());

/**
 * The environment a new `SchedulerManager` reads its deployment settings from (`BULLBEAT_PREFIX`,
 * `BULLBEAT_PARTITIONS`, `REDIS_URL`, `REDIS_CLUSTER_NODES`): `process.env`, unless the
 * code making it runs inside `withManagerEnv`.
 */
export function managerEnv(): NodeJS.ProcessEnv {
  return holder[KEY]?.getStore() ?? process.env;
}

/**
 * Runs `fn` so that every manager it makes, directly or in code it imports or calls (a jobs module),
 * reads `env` instead of `process.env`: the CLI driven in process (`runCli(argv, io)`) gives its
 * managers `io.env`, as the spawned CLI gives them its process's.
 */
export function withManagerEnv<T>(env: NodeJS.ProcessEnv, fn: () => T): T {
  // the `bullbeat` executable passes process.env itself: no store, so a long-running worker or scheduler
  // does not pay for one (on Node 20 a store turns promise hooks on for the whole process)
  if (env === process.env && holder[KEY]?.getStore() === undefined) return fn();
  return scoped().run(env, fn);
}
