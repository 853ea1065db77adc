import { CommanderError } from 'commander';
import { BullbeatError } from '../errors/index.js';
import { ExitCode } from './exit-codes.js';

const USAGE_ERRORS = new Set([
  'ConfigError',
  'JobsModuleError',
  'CronSyntaxError',
  'InvalidTimezoneError',
  'TriggerError',
  'ScheduleOptionsError',
  'SelectorError',
  'CalendarError',
  'DataFormatError',
]);

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
]);

/** What to print and which code to exit with for an error that ends a command. */
export interface Outcome {
  code: number;
  /** One line for stderr; empty when commander has already printed it. */
  message: string;
}

/**
 * Maps an error to an exit code and a one-line message. Errors are matched by `name` rather than
 * `instanceof`, so that errors thrown by a jobs module loaded from the sources (through tsx) map the
 * same as those of the built CLI.
 */
export function outcomeOf(error: unknown): Outcome {
  if (error instanceof CommanderError) {
    const helpish = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code);
    return { code: helpish ? ExitCode.ok : ExitCode.usage, message: '' };
  }
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | undefined;
  const name = typeof e?.name === 'string' ? e.name : '';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (name === 'RedisUnreachableError') return { code: ExitCode.redisUnreachable, message };
  if (name === 'ScheduleNotFoundError') return { code: ExitCode.notFound, message };
  if (USAGE_ERRORS.has(name)) return { code: ExitCode.usage, message };
  if (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) {
    return { code: ExitCode.redisUnreachable, message: `lost the connection to Redis: ${message}` };
  }
  if (error instanceof BullbeatError) return { code: ExitCode.failure, message };
  return { code: ExitCode.failure, message: `unexpected error: ${message}` };
}
