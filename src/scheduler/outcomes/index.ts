// The outcomes of runs taken by plain BullMQ Workers (not bullbeat's runtime): their queue's events
// become run records. It stands on the scheduler's words (contract/) only.
export { type ForeignOutcomesManager, startForeignOutcomes } from './foreign-outcomes-hook.js';
