import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { CommonConfig } from './cli-config.js';

/**
 * The CLI's logger: pino JSON lines on stdout (for a log collector), or pino-pretty's readable lines
 * when `format` is `pretty` (the default on a terminal). Both write synchronously, so nothing is lost
 * when the process exits right after a log line.
 */
export function createLogger(config: Pick<CommonConfig, 'logLevel' | 'logFormat'>, role: string): Logger {
  const options = { level: config.logLevel, base: { role } };
  if (config.logFormat === 'json') return pino(options, pino.destination({ dest: 1, sync: true }));
  return pino(
    options,
    pretty({
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    }),
  );
}
