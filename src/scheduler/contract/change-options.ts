import { hostname } from 'node:os';
import { ScheduleOptionsError } from '../../errors/index.js';
import { AUDIT_SOURCES, type AuditActor, type AuditSource, SYSTEM_ACTOR } from '../../store/index.js';

/** Who makes a change to a schedule, for its audit trail (`auditTrail(id)`). */
export interface ChangeOptions {
  /**
   * Who authenticated, as the code that checked it says: a user name, `api:<token name>`,
   * `cli:<user>@<host>`. Never `bullbeat` (the system's own name). At most 200 characters.
   * @defaultValue this process, `host:pid`
   */
  by?: string;
  /**
   * Where the change comes from: `dashboard`, `api`, `cli`, `code` (a deploy) or `runtime` (this
   * process's own call, or bullbeat itself).
   * @defaultValue `'runtime'`
   */
  via?: AuditSource;
  /**
   * Whom the caller says it acts for (an API client's own `onBehalfOf`): recorded as said, in its
   * own field beside `by`, never as the actor. Never `bullbeat`. At most 200 characters.
   * @defaultValue none
   */
  onBehalfOf?: string;
}

/** The longest `by` or `onBehalfOf` accepted (characters). */
export const CHANGE_BY_MAX = 200;

/** This process, `host:pid`: who makes a change when the caller does not say. */
export function thisProcess(): string {
  return `${hostname()}:${process.pid}`;
}

/** Whether a name a caller gives would read as the system's own (`bullbeat`, in any case or spacing). */
export function isSystemName(name: string): boolean {
  return name.trim().toLowerCase() === SYSTEM_ACTOR;
}

/** The problem with a name a caller gives (`by`, `onBehalfOf`), or undefined. */
function nameProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim().length === 0 || v.length > CHANGE_BY_MAX) {
    return `must be a non-empty string of at most ${CHANGE_BY_MAX} characters`;
  }
  if (isSystemName(v)) return `"${SYSTEM_ACTOR}" is the system's own name: no caller may use it`;
  return undefined;
}

/** The checked actor of a change (a `ScheduleOptionsError` naming `by`, `via` or `onBehalfOf` otherwise). */
export function actorOf(id: string | undefined, options: ChangeOptions | undefined): AuditActor {
  const by = options?.by;
  const via = options?.via;
  const onBehalfOf = options?.onBehalfOf;
  for (const [field, v] of [
    ['by', by],
    ['onBehalfOf', onBehalfOf],
  ] as const) {
    const problem = nameProblem(v);
    if (problem) throw new ScheduleOptionsError(id, field, problem);
  }
  if (via !== undefined && !AUDIT_SOURCES.includes(via)) {
    throw new ScheduleOptionsError(
      id,
      'via',
      `must be one of ${AUDIT_SOURCES.map((s) => `"${s}"`).join(', ')}, got ${JSON.stringify(via)}`,
    );
  }
  return {
    actor: by ?? thisProcess(),
    source: via ?? 'runtime',
    ...(onBehalfOf !== undefined && { onBehalfOf }),
  };
}
