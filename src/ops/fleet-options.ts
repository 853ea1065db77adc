import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { FleetRole } from './fleet-member.js';

/** Options of `joinFleet`. */
export interface JoinFleetOptions {
  /** The deployment's key prefix (the manager's `prefix`). */
  prefix: string;
  /** Redis to register in (the manager's `connectionOptions()`); `joinFleet` opens its own connection. */
  connection: RedisOptions;
  role: FleetRole;
  /** Queues it consumes (workers). Default: none. */
  queues?: readonly string[];
  /** Job names it has a handler for (workers). Default: none. */
  handlers?: readonly string[];
  /**
   * Queue → the job names it handles there (workers), so that readers list under each queue only
   * those. Default: not recorded (readers then count every handler on every queue).
   */
  handles?: Readonly<Record<string, readonly string[]>>;
  /** How often to beat (ms); readers count it dead after three missed beats. Default: 5000. */
  heartbeatMs?: number;
  /** bullbeat's version as shown in the fleet. Default: `'unknown'`. */
  version?: string;
  /** Where failed beats are logged (warn). Default: nowhere. */
  logger?: Pick<Logger, 'warn'>;
}

/** A process's membership: `leave()` stops beating and removes it at once. Safe to call twice. */
export interface FleetMembership extends AsyncDisposable {
  readonly id: string;
  /** Null while its beats get through; else why the last one failed (Redis unreachable, ...). */
  problem(): string | null;
  leave(): Promise<void>;
}
