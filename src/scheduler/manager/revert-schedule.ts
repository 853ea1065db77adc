import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type { AuditQuery, ScheduleDefinition } from '../../store/index.js';
import { type AuditEntry, definitionChanges } from '../../store/index.js';
import {
  actorOf,
  optionsOfDefinition,
  type RevertOptions,
  type RevertResult,
  type ScheduledJob,
  type SchedulePatch,
} from '../contract/index.js';

/** What a revert uses of the manager: its reads, its audit trail and its `update`. */
export interface RevertHost {
  get(id: string): Promise<ScheduledJob | undefined>;
  auditTrail(id: string, query?: AuditQuery): Promise<AuditEntry[]>;
  update(id: string, patch: SchedulePatch, change?: RevertOptions): Promise<ScheduledJob>;
  readonly options: { readonly auditLimit: number };
}

/** The ops whose audit entry carries the definition that change made. */
const DEFINING = new Set(['create', 'update', 'restore']);

/** An audit entry id: `<ms>-<seq>`. */
const ENTRY_ID = /^\d{1,15}-\d{1,15}$/;

const iso = (ms: number) => new Date(ms).toISOString();

/** The definition before an entry's change: its definition after, with each changed field's `before`. */
function definitionBefore(e: AuditEntry): ScheduleDefinition | undefined {
  if (!e.definition || !e.changes || e.changes.length === 0) return undefined;
  const before: Record<string, unknown> = { ...e.definition };
  for (const c of e.changes) {
    if (c.before === undefined) delete before[c.field];
    else before[c.field] = c.before;
  }
  return before as unknown as ScheduleDefinition;
}

/** The patch that makes a stored definition `target`: its options and trigger, and a null for what it lacks. */
export function patchTo(current: ScheduleDefinition, target: ScheduleDefinition): SchedulePatch {
  const wanted = optionsOfDefinition(target) as Record<string, unknown>;
  const patch: Record<string, unknown> = { ...wanted, trigger: target.trigger };
  delete patch.id;
  for (const k of Object.keys(optionsOfDefinition(current))) {
    if (k !== 'id' && !(k in wanted)) patch[k] = null;
  }
  return patch as SchedulePatch;
}

/** Where a code schedule's definition comes from, for the refusal: the latest deploy that changed it. */
function codeChange(trail: AuditEntry[]): string {
  const e = trail.find((x) => x.source === 'code' && DEFINING.has(x.op));
  if (!e) return 'change it in the jobs module and deploy';
  const fields = (e.changes ?? []).map((c) => c.field).join(', ');
  return `revert the code change deployed at ${iso(e.at)} (audit entry ${e.id}${fields ? `: ${fields}` : ''}) in the jobs module and deploy`;
}

/** The definition to go back to and the entry it comes from (`to`, or the one before the last change). */
function targetOf(
  id: string,
  trail: AuditEntry[],
  to: string | undefined,
): { def: ScheduleDefinition; entry: string } {
  const fail = (reason: string): never => {
    throw new ScheduleOptionsError(id, 'to', reason);
  };
  if (to === undefined) {
    const last = trail.find((e) => DEFINING.has(e.op) && e.definition);
    const def = last && definitionBefore(last);
    if (!last || !def || last.op === 'create') {
      return fail('none given, and its audit trail holds no change of definition to undo');
    }
    return { def, entry: last.id };
  }
  if (typeof to !== 'string' || !ENTRY_ID.test(to)) {
    return fail(`must be an audit entry id like "1765000000000-0", got ${JSON.stringify(to)}`);
  }
  const entry = trail.find((e) => e.id === to);
  if (!entry) {
    return fail(
      `"${to}" is not an entry of this schedule's audit trail (an entry of another schedule, or one trimmed): see its history`,
    );
  }
  if (!DEFINING.has(entry.op) || !entry.definition) {
    return fail(`entry "${to}" is a ${entry.op}: it carries no definition to go back to`);
  }
  return { def: entry.definition, entry: to };
}

/**
 * Put a runtime schedule back to a definition from its audit trail (see `SchedulerManager.revert`):
 * checked and written by `update()` (the same upsert, checks and audit entry, by the caller), so its next
 * fire time follows the restored trigger. A code schedule is refused (`source`), naming the deploy
 * that changed it; an entry not of this schedule, or without a definition, is refused (`to`).
 */
export async function revertSchedule(
  host: RevertHost,
  id: string,
  options: RevertOptions,
): Promise<RevertResult> {
  actorOf(id, options); // a bad `by`, `via` or `onBehalfOf` is refused before anything is read
  const current = await host.get(id);
  if (!current) throw new ScheduleNotFoundError(id);
  const entries = await host.auditTrail(id, { limit: Math.max(1, host.options.auditLimit) });
  if (current.def.source === 'code') {
    throw new ScheduleOptionsError(id, 'source', `is defined in code: ${codeChange(entries)}`);
  }
  const { def, entry } = targetOf(id, entries, options.to);
  const changes = definitionChanges(current.def, def).filter(
    (c) => JSON.stringify(c.before) !== JSON.stringify(c.after),
  );
  if (changes.length === 0) return { job: current, entry, changes };
  const { to: _to, ...change } = options;
  const job = await host.update(id, patchTo(current.def, def), change);
  return { job: (await host.get(id)) ?? job, entry, changes };
}
