import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { uniqueKeys } from '../logging/index.js';
import type { CommonConfig } from './cli-config.js';
import { RoutineSummary } from './routine-summary.js';

/** Default interval of the routine-run summary in pretty output (ms). */
const SUMMARY_MS = 60_000;

/**
 * The CLI's logger: pino JSON lines on stdout (for a log collector), or pino-pretty's readable lines
 * when `format` is `pretty` (the default on a terminal). Both write synchronously, so nothing is lost
 * when the process exits right after a log line. No key appears twice in a line (`uniqueKeys`).
 *
 * Pretty output is for people: one line per entry, warnings and errors in full, and routine lines of
 * runs summarised every `BULLBEAT_LOG_SUMMARY_MS` (60 s; `0` shows every line; so does `debug`).
 */
export function createLogger(
  config: Pick<CommonConfig, 'logLevel' | 'logFormat'>,
  role: string,
  env: NodeJS.ProcessEnv = process.env,
): Logger {
  const options = { level: config.logLevel, base: { role }, hooks: { logMethod: uniqueKeys } };
  if (config.logFormat === 'json') return pino(options, pino.destination({ dest: 1, sync: true }));
  const prettyOptions = {
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
  };
  const raw = env.BULLBEAT_LOG_SUMMARY_MS;
  const intervalMs = raw === undefined || raw === '' ? SUMMARY_MS : Number(raw);
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  if (!Number.isFinite(intervalMs) || intervalMs <= 0 || verbose) {
    return pino(options, pretty({ ...prettyOptions, singleLine: true }));
  }
  const summary = new RoutineSummary({
    lines: pretty({ ...prettyOptions, singleLine: true }),
    loud: pretty(prettyOptions),
    intervalMs,
  });
  return pino(options, summary);
}
