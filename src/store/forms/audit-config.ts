import { type AuditActor, RUNTIME_ACTOR } from './audit-entry.js';

/** How a deployment keeps its audit trails (see `SchedulerManagerOptions.auditLimit`). */
export interface AuditConfig {
  /** Entries kept per schedule, newest first (0: no trail). */
  limit: number;
  /** How long a removed schedule's trail is kept (ms; 0: deleted with it). */
  retentionMs: number;
}

/** The defaults: 100 entries per schedule, kept 7 days after a remove. */
export const DEFAULT_AUDIT: AuditConfig = { limit: 100, retentionMs: 7 * 24 * 3600 * 1000 };

/** The four audit ARGV every change script takes (includes/audit.lua): limit, actor, source, onBehalfOf. */
export function auditArgs(
  config: AuditConfig,
  who: AuditActor = RUNTIME_ACTOR,
): [number, string, string, string] {
  return [config.limit, who.actor, who.source, who.onBehalfOf ?? ''];
}

/** Who writes a change, and the trails' bounds: what a change script's four audit ARGV say. */
export interface AuditBy {
  audit: AuditConfig;
  /** Default: bullbeat itself. */
  by?: AuditActor | undefined;
}

/** A change script's audit ARGV by their slot names (`script-layouts.ts`). */
export function auditSlots(a: AuditBy): {
  auditLimit: number;
  auditActor: string;
  auditSource: string;
  auditOnBehalfOf: string;
} {
  const [auditLimit, auditActor, auditSource, auditOnBehalfOf] = auditArgs(a.audit, a.by);
  return { auditLimit, auditActor, auditSource, auditOnBehalfOf };
}
