// Backfill and the owed runs (runs taken by a backfill or a resume, owed until enqueued, swept by
// every replica). It stands on the scheduler's words (contract/) only.
export { type BackfillContext, type BackfillRun, runBackfill, startBackfill } from './backfill.js';
export { enqueueOwed, type OwedRunsContext } from './owed-runs.js';
export { OwedRunsSweeper } from './owed-runs-sweeper.js';
