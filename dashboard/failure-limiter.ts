import type { Logger } from 'pino';

/** Which door a failed attempt came through (logged, never the secret itself). */
export type AttemptKind = 'bearer' | 'basic' | 'form';

export interface FailureLimiterOptions {
  /** Failed attempts a client may make per window; `0` turns the limit off. */
  limit: number;
  /** The window, in ms, counted from a client's first failure. */
  windowMs: number;
  /** Clients tracked at most (the oldest windows are dropped first), so memory stays bounded. */
  maxClients: number;
  logger: Logger;
  now?: () => number;
}

interface Entry {
  startedAt: number;
  failures: number;
  warned: boolean;
}

/**
 * Failed authentication attempts per client address, in memory: after `limit` failures inside a
 * window that starts at the client's first failure, the client is refused (`retryAfterMs() > 0`)
 * until the window ends. Successes are not counted. Each failure is logged at info and each refused
 * client once per window at warn, with its address and the kind of credential, never the secret.
 * The map holds at most `maxClients` entries: expired ones are swept first, then the oldest dropped.
 */
export class FailureLimiter {
  private readonly clients = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly options: FailureLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Clients tracked now. */
  get size(): number {
    return this.clients.size;
  }

  /** How long `client` must still wait, in ms; `0` when it may try. */
  retryAfterMs(client: string): number {
    if (this.options.limit === 0) return 0;
    const entry = this.live(client);
    if (!entry || entry.failures < this.options.limit) return 0;
    return Math.max(1, entry.startedAt + this.options.windowMs - this.now());
  }

  /** Count a failed attempt; logs it, and logs the refusal once when it reaches the limit. */
  fail(client: string, kind: AttemptKind): void {
    if (this.options.limit === 0) return;
    const { limit, windowMs, logger } = this.options;
    let entry = this.live(client);
    if (!entry) {
      this.makeRoom();
      entry = { startedAt: this.now(), failures: 0, warned: false };
      this.clients.set(client, entry);
    }
    entry.failures++;
    logger.info({ client, auth: kind, failures: entry.failures }, 'dashboard: authentication failed');
    if (entry.failures >= limit && !entry.warned) {
      entry.warned = true;
      const retryAfterS = Math.ceil((entry.startedAt + windowMs - this.now()) / 1000);
      logger.warn(
        { client, auth: kind, failures: entry.failures, retryAfterS },
        `dashboard: too many failed authentication attempts from ${client}; refusing it for ${retryAfterS} s`,
      );
    }
  }

  /** The client's entry while its window runs (an expired one is dropped). */
  private live(client: string): Entry | undefined {
    const entry = this.clients.get(client);
    if (entry && this.now() - entry.startedAt >= this.options.windowMs) {
      this.clients.delete(client);
      return undefined;
    }
    return entry;
  }

  /** Before adding a client at the cap: drop expired windows, then the oldest (Map order is start order). */
  private makeRoom(): void {
    if (this.clients.size < this.options.maxClients) return;
    const now = this.now();
    for (const [client, entry] of this.clients) {
      if (now - entry.startedAt >= this.options.windowMs) this.clients.delete(client);
      else break; // entries are in start order: the rest are newer
    }
    while (this.clients.size >= this.options.maxClients) {
      const oldest = this.clients.keys().next();
      if (oldest.done) break;
      this.clients.delete(oldest.value);
    }
  }
}
