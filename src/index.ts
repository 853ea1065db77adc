export * from './cron/index.js';
export * from './errors/index.js';
export * from './insight/index.js';
export * from './logging/index.js';
export * from './ops/index.js';
export { packageVersion } from './package-version.js';
export * from './queue/index.js';
export * from './scheduler/index.js';
export * from './triggers/index.js';
