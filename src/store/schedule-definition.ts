import type { BackoffOptions } from 'bullmq';
import type { MisfirePolicy, PassthroughJobOptions } from '../scheduler/schedule-options.js';
import type { TriggerJSON } from '../triggers/trigger.js';
import type { OccurrenceRunOptions } from './job-payload.js';

/** Stands in for a custom trigger, which cannot be serialized: only code that defines it can fire it. */
export interface CustomTriggerJSON {
  type: 'custom';
  /** The trigger's class name, for display. */
  kind: string;
}

/**
 * Where a schedule comes from. `code`: registered by the jobs module before `start()`; upserted at
 * every start, paused (orphaned) when a scheduler starts without it. `runtime`: created while running
 * (or targeting a queue with no local function); persists until removed.
 */
export type ScheduleSource = 'code' | 'runtime';

/**
 * A schedule as stored in Redis (the `schedules` hash, JSON): every option resolved, nothing
 * process-local (middleware and functions stay in the code that defines them).
 */
export interface ScheduleDefinition {
  id: string;
  name: string;
  queue: string;
  source: ScheduleSource;
  trigger: TriggerJSON | CustomTriggerJSON;
  args: unknown[];
  data?: unknown;
  run: OccurrenceRunOptions;
  attempts: number;
  backoff?: number | BackoffOptions;
  jobOptions?: PassthroughJobOptions;
  misfire: MisfirePolicy;
  misfireGraceMs: number;
  catchUpWindowMs?: number;
  maxCatchUp: number;
  startAt?: number;
  endAt?: number;
  maxRuns?: number;
}

/**
 * The part of a definition that decides when it fires: when it changes (a new expression deployed),
 * the next due time is recomputed; otherwise an upsert keeps it. 8 hex digits of FNV-1a.
 */
export function timingFingerprint(def: ScheduleDefinition): string {
  const text = JSON.stringify([def.trigger, def.startAt ?? null, def.endAt ?? null]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Read a stored definition, never throwing: one that cannot be parsed, or lacks what every reader
 * relies on (id, name, queue, trigger, run, args), comes back as a stand-in (a custom trigger of
 * kind `unreadable`, default options) with the `problem` that the readers show as its error.
 */
export function decodeDefinition(id: string, json: string): { def: ScheduleDefinition; problem?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { def: standIn(id, undefined), problem: `cannot read its definition: ${(err as Error).message}` };
  }
  const o = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<
    string,
    unknown
  >;
  const trigger = o.trigger as { type?: unknown } | undefined;
  const run = o.run as { maxInstances?: unknown } | undefined;
  const missing = [
    typeof o.name !== 'string' && 'name',
    typeof o.queue !== 'string' && 'queue',
    (typeof trigger !== 'object' || trigger === null || typeof trigger.type !== 'string') && 'trigger',
    (typeof run !== 'object' || run === null || typeof run.maxInstances !== 'number') && 'run',
    !Array.isArray(o.args) && 'args',
  ].filter((f): f is string => typeof f === 'string');
  if (missing.length > 0) {
    return { def: standIn(id, o), problem: `cannot read its definition: no valid ${missing.join(', ')}` };
  }
  return { def: { ...(raw as ScheduleDefinition), id } };
}

function standIn(id: string, o: Record<string, unknown> | undefined): ScheduleDefinition {
  return {
    id,
    name: typeof o?.name === 'string' ? o.name : id,
    queue: typeof o?.queue === 'string' ? o.queue : '',
    source: o?.source === 'code' ? 'code' : 'runtime',
    trigger: { type: 'custom', kind: 'unreadable' },
    args: [],
    run: { maxInstances: 1, coalesce: true },
    attempts: 1,
    misfire: 'once',
    misfireGraceMs: 60_000,
    maxCatchUp: 0,
  };
}
