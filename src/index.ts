export * from './queue/index.js';
