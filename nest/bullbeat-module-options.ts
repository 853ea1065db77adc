import type { CreateWorkerOptions, SchedulerManager, SchedulerManagerOptions } from '../src/index.js';

/** What a Nest application instance does with bullbeat: fire the schedules, run their handlers, or both. */
export type BullbeatRole = 'scheduler' | 'worker';

/** Options of `BullbeatModule.forRoot()` (or returned by `forRootAsync()`'s factory). */
export interface BullbeatModuleOptions extends Omit<SchedulerManagerOptions, 'role'> {
  /**
   * A pino logger for the manager and the worker (`pino({ level: 'debug' })` for bullbeat's own JSON
   * lines).
   * @defaultValue a pino logger written through Nest's `Logger` (context `bullbeat`), at `LOG_LEVEL`
   * else `info`: bullbeat's lines come out in the application's log format and levels
   */
  logger?: SchedulerManagerOptions['logger'];
  /**
   * The roles this instance runs. `'scheduler'`: fire each occurrence onto its queue (exactly once
   * across every instance that runs it); `'worker'`: consume the queues and run the decorated methods.
   * `[]`: neither; the schedules are still saved at start-up and `SchedulerManager` can be injected to
   * list, pause or trigger them. Default: `['scheduler', 'worker']`.
   */
  roles?: readonly BullbeatRole[];
  /**
   * The worker role's options (`createWorker`'s). Default queues: those of the schedules whose job
   * name has a decorated method in this application (else the manager's `defaultQueue`).
   */
  worker?: CreateWorkerOptions;
  /**
   * Use this manager instead of creating one (the other manager options are then ignored). Its
   * `role` must be `'scheduler'` when `roles` has `'scheduler'`, and `'client'` otherwise. Default: a
   * new `SchedulerManager` built from these options.
   */
  manager?: SchedulerManager;
}

/** `BullbeatModule.forRootAsync()`: options made by a factory with Nest's injection. */
export interface BullbeatModuleAsyncOptions {
  /** Modules whose providers the factory injects (e.g. `ConfigModule`). Default: none. */
  // biome-ignore lint/suspicious/noExplicitAny: Nest's module references are untyped
  imports?: any[];
  /** Providers handed to `useFactory`, in order. Default: none. */
  // biome-ignore lint/suspicious/noExplicitAny: Nest's injection tokens are untyped
  inject?: any[];
  // biome-ignore lint/suspicious/noExplicitAny: the injected values are the factory's own business
  useFactory: (...args: any[]) => BullbeatModuleOptions | Promise<BullbeatModuleOptions>;
}

/** `BullbeatModuleOptions` with the defaults applied. */
export interface ResolvedBullbeatModuleOptions {
  roles: ReadonlySet<BullbeatRole>;
  worker: CreateWorkerOptions;
  manager: SchedulerManager;
}
