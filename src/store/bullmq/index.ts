// The door of src/store/bullmq/: what the store's other rooms use of it.

export { addJobsInOneCall, canAddInOneCall, type JobToAdd } from './bulk-add.js';
export {
  awaitEvents,
  type EventsRead,
  type FinishedEvent,
  lastEventId,
  type QueueEventKeys,
  readFinishedEvents,
} from './bull-events.js';
export { jobsWaiting, unstageJobs, unstartedSince, wakeWorkers } from './bull-jobs.js';
export { handOverScheduler, pendingInstant, removeRepeatEntry, repeatEntries } from './bull-repeat.js';
export {
  type BullmqHandover,
  BullmqHandovers,
  leftToBullmq,
  parseBullmqHandover,
} from './bullmq-handover.js';
export { type ForeignOutcome, ForeignOutcomeRecorder } from './foreign-outcome-script.js';
export { checkQueueOwner, holdQueue, QUEUE_HOLD_MS, queueOwnerKey, releaseQueue } from './queue-owner.js';
export { announceRuntimeQueues, liveRuntimeQueues, RUNTIME_ANNOUNCE_MS } from './runtime-queues.js';
