import type { LogFn, Logger } from 'pino';

/**
 * A pino `hooks.logMethod` that keeps every key once per line. pino writes a child's bindings and
 * the call's object side by side, so `ctx.logger.info({ fireAt })` (the run logger binds `fireAt`)
 * printed `fireAt` twice, and a JSON reader keeps only one of them. Here a key the logger already
 * binds is dropped from the call when it says the same (a `Date` of the same instant counts), and
 * renamed `<key>_given` when it says something else.
 *
 * bullbeat's own loggers use it; with a pino logger of your own: `pino({ hooks: { logMethod: uniqueKeys } })`.
 */
export function uniqueKeys(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const obj = args[0] as unknown;
  if (obj === null || typeof obj !== 'object' || obj instanceof Error || Array.isArray(obj)) {
    method.apply(this, args);
    return;
  }
  const bound = this.bindings() as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(bound, key)) continue;
    copy ??= { ...(obj as Record<string, unknown>) };
    const value = copy[key];
    delete copy[key];
    if (!same(bound[key], value)) copy[`${key}_given`] = value;
  }
  method.apply(this, copy === undefined ? args : ([copy, ...args.slice(1)] as Parameters<LogFn>));
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (b instanceof Date) return typeof a === 'number' ? b.getTime() === a : b.toISOString() === a;
  if (typeof a === 'object' && typeof b === 'object') {
    try {
      return JSON.stringify(a) === JSON.stringify(b);
    } catch {
      return false;
    }
  }
  return false;
}
