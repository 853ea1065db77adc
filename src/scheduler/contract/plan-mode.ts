import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One store per process, shared by every copy of bullbeat loaded in it (as `managerEnv`'s): a jobs
 * module built against the package while the CLI runs from another copy sees the same mode.
 */
const KEY = Symbol.for('bullbeat.planMode');
const holder = globalThis as { [KEY]?: AsyncLocalStorage<true> };

/**
 * Whether a manager made now is made for `bullbeat plan`: it then collects what its code defines at
 * import (`calendars.define`) instead of writing it, so that the plan can show it and nothing is written.
 */
export function inPlanMode(): boolean {
  return holder[KEY]?.getStore() === true;
}

/**
 * Runs `fn` so that every manager it makes, directly or in a jobs module it imports, is in plan mode
 * (`inPlanMode`): `bullbeat plan` loads the module inside it.
 */
export function withPlanMode<T>(fn: () => T): T {
  holder[KEY] ??= new AsyncLocalStorage<true>();
  return holder[KEY].run(true, fn);
}
