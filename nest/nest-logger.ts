import { Logger, type LoggerService } from '@nestjs/common';
import pino, { type Logger as PinoLogger } from 'pino';
import { uniqueKeys } from '../src/index.js';

/** Where a pino level (10 trace … 60 fatal) goes among a Nest logger's methods. */
function nestMethod(level: number): 'verbose' | 'debug' | 'log' | 'warn' | 'error' {
  if (level >= 50) return 'error';
  if (level >= 40) return 'warn';
  if (level >= 30) return 'log';
  if (level >= 20) return 'debug';
  return 'verbose';
}

/**
 * One pino line as a Nest log call: the message, then the remaining fields as compact JSON
 * (`bullbeat/nest: started {"roles":["scheduler","worker"],...}`); an error's stack goes where Nest
 * prints stacks.
 */
export function forwardToNest(nest: LoggerService, line: string): void {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    nest.log(line.trimEnd());
    return;
  }
  const { level, msg, err, ...fields } = record;
  const method = nestMethod(typeof level === 'number' ? level : 30);
  const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
  const error = err as { message?: string; stack?: string } | undefined;
  const message = `${typeof msg === 'string' ? msg : (error?.message ?? '')}${rest}`;
  if (method === 'error') nest.error(message, error?.stack);
  else if (method === 'warn' && error?.stack) nest.warn(`${message}\n${error.stack}`);
  else nest[method]?.(message);
}

/**
 * The logger bullbeat uses inside a Nest application when `forRoot()` is given none: a pino logger
 * (bullbeat's loggers are pino's) whose lines are written through Nest's `Logger` under the context
 * `bullbeat`, so they come out in the application's own format, filtered by its own log levels (and
 * through a custom logger set with `app.useLogger()` or `bufferLogs`). bullbeat's level is
 * `LOG_LEVEL`, else `info`; Nest then drops what its levels exclude.
 */
export function nestLogger(context = 'bullbeat'): PinoLogger {
  const nest = new Logger(context);
  return pino(
    {
      level: process.env.LOG_LEVEL ?? 'info',
      // Nest prints its own time, pid and context.
      base: null,
      timestamp: false,
      hooks: { logMethod: uniqueKeys },
    },
    { write: (line: string) => forwardToNest(nest, line) },
  );
}
