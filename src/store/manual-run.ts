import type { Redis } from 'ioredis';
import type { AuditActor } from './audit-entry.js';
import { type AuditConfig, auditArgs } from './audit-trail.js';
import { type Keys, occurrenceField } from './keys.js';
import { counted, patchArgs } from './record-form.js';
import type { RunPatch } from './run-history.js';
import { defineStoreScripts } from './scripts.js';

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
  defineStoreScripts(s.redis);
  const k = s.keys.of(scheduleId);
  await s.redis.bbManualRun(
    ...[k.runs(scheduleId), k.runIndex(scheduleId), k.counts(scheduleId), k.totals, k.audit(scheduleId)],
    occurrenceField(fireAt, true),
    fireAt,
    scheduleId,
    s.historyLimit,
    ...auditArgs(s.audit, by),
    patch.jobId ?? '',
    ...counted(patchArgs(patch).set),
  );
}
