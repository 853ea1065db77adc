export { BullbeatError } from './bullbeat-error.js';
export { type CronField, CronSyntaxError } from './cron-syntax-error.js';
export { InvalidTimezoneError } from './invalid-timezone-error.js';
export { TimeoutError } from './timeout-error.js';
export { TriggerError } from './trigger-error.js';
export { UnknownHandlerError } from './unknown-handler-error.js';
export { ConfigError } from './config-error.js';
export { JobsModuleError } from './jobs-module-error.js';
export { RedisUnreachableError } from './redis-unreachable-error.js';
