import { hostname } from 'node:os';
import { ScheduleOptionsError } from '../../errors/index.js';
import { AUDIT_SOURCES, type AuditActor, type AuditSource } from '../../store/audit-entry.js';

/** Who makes a change to a schedule, for its audit trail (`auditTrail(id)`). */
export interface ChangeOptions {
  /**
   * Who: a user name, `api:<token name>`, `cli:<user>@<host>`. At most 200 characters.
   * @defaultValue this process, `host:pid`
   */
  by?: string;
  /**
   * Where the change comes from: `dashboard`, `api`, `cli`, `code` (a deploy) or `runtime` (this
   * process's own call, or bullbeat itself).
   * @defaultValue `'runtime'`
   */
  via?: AuditSource;
}

/** The longest `by` accepted (characters). */
export const CHANGE_BY_MAX = 200;

/** This process, `host:pid`: who makes a change when the caller does not say. */
export function thisProcess(): string {
  return `${hostname()}:${process.pid}`;
}

/** The checked actor of a change (a `ScheduleOptionsError` naming `by` or `via` otherwise). */
export function actorOf(id: string | undefined, options: ChangeOptions | undefined): AuditActor {
  const by = options?.by;
  const via = options?.via;
  if (by !== undefined && (typeof by !== 'string' || by.length === 0 || by.length > CHANGE_BY_MAX)) {
    throw new ScheduleOptionsError(
      id,
      'by',
      `must be a non-empty string of at most ${CHANGE_BY_MAX} characters`,
    );
  }
  if (via !== undefined && !AUDIT_SOURCES.includes(via)) {
    throw new ScheduleOptionsError(
      id,
      'via',
      `must be one of ${AUDIT_SOURCES.map((s) => `"${s}"`).join(', ')}, got ${JSON.stringify(via)}`,
    );
  }
  return { actor: by ?? thisProcess(), source: via ?? 'runtime' };
}
