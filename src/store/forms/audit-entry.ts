import type { ScheduleDefinition } from './definition-schema.js';
import { decodeDefinition } from './schedule-definition.js';

/** Where a change came from. */
export const AUDIT_SOURCES = ['dashboard', 'api', 'cli', 'code', 'runtime'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** What changed a schedule: `create` ... `cleared` (see `AuditEntry`). */
export type AuditOp =
  | 'create'
  | 'update'
  | 'restore'
  | 'orphan'
  | 'pause'
  | 'resume'
  | 'remove'
  | 'trigger'
  | 'backfill'
  | 'errored'
  | 'cleared';

/** Who made a change and from where: written into its audit entry. */
export interface AuditActor {
  /**
   * Who authenticated: the dashboard user (`dashboard:<user>`), `api:<token name>`, `cli:<user>@<host>`,
   * `code`, `bullbeat` (the system, and only it), or what the embedding code says (default `host:pid`).
   */
  actor: string;
  source: AuditSource;
  /** Whom the caller says it acts for: its own claim, kept apart from `actor` (absent: none named). */
  onBehalfOf?: string;
}

/** The system's own name: the actor of what bullbeat does itself, which no caller may claim. */
export const SYSTEM_ACTOR = 'bullbeat';

/** bullbeat itself (a pause on failure, an errored schedule, a completed one pruned). */
export const RUNTIME_ACTOR: AuditActor = { actor: SYSTEM_ACTOR, source: 'runtime' };
/** The deploy of a jobs module (its code schedules upserted at start). */
export const CODE_ACTOR: AuditActor = { actor: 'code', source: 'code' };

/** One field of a definition before and after an update (`undefined`: absent). */
export interface AuditChange {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * One entry of a schedule's audit trail (`keys.audit(id)`, a stream): a change, who made it, when
 * (Redis's clock: the stream id's milliseconds) and from where, with the fields of that kind of change.
 */
export interface AuditEntry {
  /** The stream entry id (`<ms>-<seq>`): a cursor for the next page (`before`). */
  id: string;
  /** When (epoch ms, Redis time). */
  at: number;
  op: AuditOp | string;
  /** Who authenticated (see `AuditActor.actor`). */
  actor: string;
  source: AuditSource | string;
  /** Whom the caller said it acted for: a claim, not checked (absent: none named). */
  onBehalfOf?: string;
  /** `pause`: the note (may be empty). */
  note?: string;
  /** `resume`: its policy (`skip`, `once`, `all`). */
  policy?: string;
  /** `resume`: catch-up runs taken; `backfill`: occurrences taken by that step. */
  runs?: number;
  /** `backfill`: its range `[from, to)` (ms). */
  from?: number;
  to?: number;
  /** `errored`: why. */
  reason?: string;
  /** `errored`: the occurrence it failed on; `trigger`: the manual run's fire time. */
  fireAt?: number;
  /** `backfill`: what its runs carry instead of the schedule's (`data`, `jobOptions`, comma-separated). */
  overrides?: string;
  /** `trigger`: the manual run's BullMQ job id. */
  jobId?: string;
  /** `cleared`: its next due time (null: completed). */
  next?: number | null;
  /** `create`, `update`, `restore`, `remove`: the fields that differ (all of them for a create or a remove). */
  changes?: AuditChange[];
  /** `create`, `update`, `restore`: the definition after; `remove`: the one removed. */
  definition?: ScheduleDefinition;
}

const NUMBERS = ['runs', 'from', 'to', 'fireAt'] as const;
const TEXTS = ['onBehalfOf', 'note', 'policy', 'reason', 'jobId', 'overrides'] as const;

/** The one reader of a stored entry (a stream entry: its id and flat field list); never throws. */
export function decodeAuditEntry(scheduleId: string, streamId: string, flat: readonly string[]): AuditEntry {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) f.set(flat[i] as string, flat[i + 1] as string);
  const entry: AuditEntry = {
    id: streamId,
    at: Number(streamId.split('-')[0]),
    op: f.get('op') ?? '',
    actor: f.get('actor') ?? '',
    source: f.get('source') ?? '',
  };
  for (const k of TEXTS) {
    const v = f.get(k);
    if (v !== undefined) entry[k] = v;
  }
  for (const k of NUMBERS) {
    const v = f.get(k);
    if (v !== undefined && v !== '' && Number.isFinite(Number(v))) entry[k] = Number(v);
  }
  if (f.has('next')) entry.next = f.get('next') === '' ? null : Number(f.get('next'));
  const before = f.get('before');
  const after = f.get('after');
  if (before !== undefined || after !== undefined) {
    const b = before ? decodeDefinition(scheduleId, before).def : undefined;
    const a = after ? decodeDefinition(scheduleId, after).def : undefined;
    entry.changes = definitionChanges(b, a);
    const shown = a ?? b;
    if (shown) entry.definition = shown;
  }
  return entry;
}

/** The fields of two definitions that differ, in the definition's order (the id aside). */
export function definitionChanges(
  before: ScheduleDefinition | undefined,
  after: ScheduleDefinition | undefined,
): AuditChange[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => k !== 'id');
  return fields
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
    .map((field) => ({ field, before: b[field], after: a[field] }));
}

const SOURCE_OF_LETTER: Readonly<Record<string, string>> = {
  d: 'dashboard',
  a: 'api',
  l: 'cli',
  c: 'code',
  r: 'runtime',
};

/**
 * A trail's first entry as its partition's first-entry hash keeps it while it is the trail's only one
 * (`keys.auditFirst`, includes/audit.lua): a `create`, `<ms, base 36>|<source letter><actor>`. Its
 * stream id (`<ms>-0`) and its fields as a stream entry's, the definition it created (`after`, the one
 * stored) given by the caller; undefined for a value that is not one.
 */
export function firstAuditEntry(
  value: string,
  after: string | null | undefined,
): { streamId: string; flat: string[] } | undefined {
  const bar = value.indexOf('|');
  const ms = bar > 0 ? Number.parseInt(value.slice(0, bar), 36) : Number.NaN;
  if (!Number.isSafeInteger(ms)) return undefined;
  const flat = [
    'op',
    'create',
    'actor',
    value.slice(bar + 2),
    'source',
    SOURCE_OF_LETTER[value.charAt(bar + 1)] ?? '',
  ];
  if (after) flat.push('after', after);
  return { streamId: `${ms}-0`, flat };
}

/** Two stream ids (`ms-seq`) in order: negative when `a` is older. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
