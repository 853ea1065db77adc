export type { CronOptions, DstPolicy } from './cron-options.js';
export { CronParser } from './cron-parser.js';
export { TimeZone } from './time-zone.js';
