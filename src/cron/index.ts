export type { CronOptions, DstPolicy } from './cron-options.js';
export { CronParser } from './cron-parser.js';
export { type DescribeOptions, describeCron, describeSeconds } from './describe.js';
export { formatWallTime } from './format-wall-time.js';
