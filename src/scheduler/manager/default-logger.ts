import pino from 'pino';
import { uniqueKeys } from '../../logging/unique-keys.js';

/** The manager's logger when its options give none: pino named `bullbeat`, at `LOG_LEVEL` (default info). */
export function defaultLogger(): pino.Logger {
  return pino({ name: 'bullbeat', level: process.env.LOG_LEVEL ?? 'info', hooks: { logMethod: uniqueKeys } });
}
