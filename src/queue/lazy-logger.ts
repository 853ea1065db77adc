import type { Bindings, Logger } from 'pino';

/** The key under which a lazy logger gives its child itself (`realLogger`). */
const REAL = Symbol('bullbeat.realLogger');

/** A lazy child's state: its parent and bindings until it is made, then the child. */
interface Pending {
  parent: Logger;
  bindings: Bindings;
  child: Logger | undefined;
}

function made(p: Pending): Logger {
  p.child ??= p.parent.child(p.bindings);
  return p.child;
}

/** One handler for every lazy child: each proxy's target is its own `Pending`. */
const handler: ProxyHandler<Pending> = {
  get(p, key) {
    const child = made(p);
    if (key === REAL) return child;
    const value = Reflect.get(child, key, child);
    return typeof value === 'function' ? value.bind(child) : value;
  },
  set(p, key, value) {
    return Reflect.set(made(p), key, value);
  },
  has(p, key) {
    return key === REAL || Reflect.has(made(p), key);
  },
};

/**
 * `parent.child(bindings)`, made when first used. Why: a pino child serializes its bindings when it
 * is made, which costs a run more than most of its other steps, and a run that succeeds logs nothing.
 * Anything read or called on it (`info`, `level`, `child`) makes the child and goes to it.
 */
export function lazyChild(parent: Logger, bindings: Bindings): Logger {
  return new Proxy<Pending>({ parent, bindings, child: undefined }, handler) as unknown as Logger;
}

/** The child behind a lazy logger (made now if it was not), or `logger` itself: what a handler gets. */
export function realLogger(logger: Logger): Logger {
  return ((logger as unknown as Record<symbol, Logger | undefined>)[REAL] as Logger | undefined) ?? logger;
}
