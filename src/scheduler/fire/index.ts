// The fire cycle of one replica: claim ahead, plan, stage, enqueue at the fire time by Redis's clock,
// complete. It stands on the scheduler's words (contract/) only.

export { type FireClock, monotonicClock } from './fire-clock.js';
export { type FireHooks, FireLoop, type FireLoopFootprint, MAX_HORIZON_MS } from './fire-loop.js';
export { type FireLoopDeps, type FireLoopStats, RESUBSCRIBED } from './fire-loop-types.js';
export { type UnstagedRecords, unstage, unstageAndRecord } from './staged-jobs.js';
