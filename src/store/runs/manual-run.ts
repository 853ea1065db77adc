import type { Redis } from 'ioredis';
import type { AuditActor, AuditConfig } from '../forms/index.js';
import { type Keys, occurrenceField } from '../keys/index.js';
import type { RunPatch } from '../reads/index.js';
import { LedgerScripts } from '../scripts/index.js';

/** Where a manual run is recorded: the run history's bound and the audit trails'. */
export interface ManualRunStore {
  redis: Redis;
  keys: Keys;
  historyLimit: number;
  audit: AuditConfig;
}

/**
 * Record a manual run (`triggerNow`) once its job is in its queue: its `enqueued` record (the merge
 * rule, as `RunHistory.merge`) and its `trigger` audit entry, in one script (`lua/manual-run-5.lua`).
 */
export async function recordManualRun(
  s: ManualRunStore,
  scheduleId: string,
  fireAt: number,
  patch: RunPatch,
  by: AuditActor,
): Promise<void> {
  await new LedgerScripts(s.redis).manualRun(s.keys, {
    scheduleId,
    field: occurrenceField(fireAt, true),
    fireAt,
    historyLimit: s.historyLimit,
    jobId: patch.jobId ?? '',
    patch,
    audit: s.audit,
    by,
  });
}
