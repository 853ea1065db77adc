// The door of src/store/scripts/: what the store's other rooms use of it.

export { LeaseScripts } from './lease-scripts.js';
export { LedgerScripts } from './ledger-scripts.js';
export {
  type CompleteAnswer,
  type FinishRunArgs,
  type RunFinish,
  RunPathScripts,
  type RunStart,
  type StartRunArgs,
} from './run-path-scripts.js';
export { type EnqueuedRecord, type ListCounts, ScheduleScripts } from './schedule-scripts.js';
export { type BackfillVerdict, type HandOver, StatusChange, yes } from './script-codes.js';
export { ScriptCaller, scriptArgs, unexpected } from './script-layout.js';
export {
  COMPACT_AUDIT,
  INCIDENT,
  OUTBOX_DONE,
  OUTBOX_TAKE,
  RELEASE_QUEUE,
  SET_FORMAT,
} from './script-layouts.js';
