import type { AuditChange, AuditEntry } from '../../store/index.js';

/** A definition field's value in a line: compact JSON, `(none)` when absent. */
export function fieldValue(v: unknown): string {
  return v === undefined ? '(none)' : JSON.stringify(v);
}

/** One changed field: `trigger: {"type":"interval","seconds":60} → {"type":"cron",...}`. */
export function changeWords(c: AuditChange): string {
  return `${c.field}: ${fieldValue(c.before)} → ${fieldValue(c.after)}`;
}

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** What an entry changed, in one line (the CLI's and the dashboard's `details`). */
export function auditDetails(e: AuditEntry): string {
  switch (e.op) {
    case 'pause':
      return e.note ? `"${e.note}"` : '(no note)';
    case 'resume':
      return `policy ${e.policy ?? 'skip'}${e.runs ? `, ${e.runs} catch-up run${e.runs === 1 ? '' : 's'}` : ''}`;
    case 'backfill':
      return `[${iso(e.from)}, ${iso(e.to)}): ${e.runs ?? 0} occurrence${e.runs === 1 ? '' : 's'} taken`;
    case 'trigger':
      return `job ${e.jobId ?? '?'}`;
    case 'errored':
      return `${e.reason ?? ''}${e.fireAt !== undefined ? ` (occurrence ${iso(e.fireAt)})` : ''}`;
    case 'cleared':
      return e.next === null || e.next === undefined ? 'completed' : `next ${iso(e.next)}`;
    case 'create':
    case 'remove':
      return e.definition
        ? `${e.definition.name} on queue ${e.definition.queue}, ${fieldValue(e.definition.trigger)}`
        : '';
    default:
      return (e.changes ?? []).map(changeWords).join('; ');
  }
}
