// The door of src/store/runs/: what the store's other rooms use of it.

export { BACKFILL_LEDGER_TTL_MS, BackfillLedger, type ResumeTake } from './backfill-ledger.js';
export { type ManualRunStore, recordManualRun } from './manual-run.js';
export { RunSlots } from './run-slots.js';
