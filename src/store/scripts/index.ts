// The door of src/store/scripts/: the per-domain callers of the store's scripts, each over one
// `ScriptCaller` (the scripts defined once on a client), and what their answers are.

export { LeaseScripts } from './lease-scripts.js';
export { LedgerScripts } from './ledger-scripts.js';
export type { CompleteAnswer, FinishRunArgs, RunFinish, RunStart, StartRunArgs } from './run-path-scripts.js';
export { RunPathScripts } from './run-path-scripts.js';
export { ScheduleScripts } from './schedule-scripts.js';
export { type BackfillVerdict, type HandOver, StatusChange } from './script-codes.js';
