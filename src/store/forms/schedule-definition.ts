import {
  definitionSchema,
  firstProblem,
  SCHEDULE_DEFAULTS,
  type ScheduleDefinition,
} from './definition-schema.js';
import { DEFAULT_SLOT_RULE } from './overlap-policy.js';
import { resolveRunOptions } from './run-options.js';

export type { CustomTriggerJSON, ScheduleDefinition, ScheduleSource } from './definition-schema.js';

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
 * Read a stored definition with `definitionSchema`, never throwing: one that cannot be parsed, or
 * breaks a rule (a field missing, of the wrong type, out of bounds), comes back as a stand-in (a
 * custom trigger of kind `unreadable`, default options) with the `problem` that the readers show as
 * its error, naming the field: `cannot read its definition: run.maxInstances: must be ...`.
 */
export function decodeDefinition(id: string, json: string): { def: ScheduleDefinition; problem?: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    return { def: standIn(id, undefined), problem: `cannot read its definition: ${(err as Error).message}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { def: standIn(id, undefined), problem: 'cannot read its definition: not a JSON object' };
  }
  const result = definitionSchema.safeParse(withDefaults(id, raw as Record<string, unknown>));
  if (result.success) return { def: result.data };
  const { field, reason } = firstProblem(result.error);
  return {
    def: standIn(id, raw as Record<string, unknown>),
    problem: `cannot read its definition: ${field}: ${reason}`,
  };
}

/**
 * The stored form of a definition (the `schedules` hash): its fields with `name` and `queue` first
 * (see `peekNameAndQueue`), without the id (the hash field names it) and without any option equal to
 * its default (`SCHEDULE_DEFAULTS`, source `runtime`, no args): an idle schedule costs Redis less than
 * half of the full JSON. `decodeDefinition` fills them back in, and reads the full rows written by
 * earlier releases as they are.
 */
export function encodeDefinition(def: ScheduleDefinition): string {
  const d = SCHEDULE_DEFAULTS;
  const {
    id: _id,
    name,
    queue,
    source,
    trigger,
    args,
    run,
    attempts,
    misfire,
    misfireGraceMs,
    maxCatchUp,
    ...rest
  } = def;
  const { maxInstances, overlap, slot, ...runRest } = run;
  // The default rule is left out with the defaults it comes from: a row without `slot` is read by the
  // rule of earlier releases (`earlierSlotRule`), which gives the default rule for those defaults. Any
  // other rule is written with its policy, which a replica of an earlier release reads the same way.
  const defaultRule =
    overlap === d.overlap && slot.mode === DEFAULT_SLOT_RULE.mode && slot.cap === DEFAULT_SLOT_RULE.cap;
  const compactRun = {
    ...(maxInstances !== d.maxInstances && { maxInstances }),
    ...(!defaultRule && { overlap, slot }),
    ...runRest,
  };
  return JSON.stringify({
    name,
    queue,
    ...(source !== 'runtime' && { source }),
    trigger,
    ...(args.length > 0 && { args }),
    ...(Object.keys(compactRun).length > 0 && { run: compactRun }),
    ...(attempts !== d.attempts && { attempts }),
    ...(misfire !== d.misfire && { misfire }),
    ...(misfireGraceMs !== d.misfireGraceMs && { misfireGraceMs }),
    ...(maxCatchUp !== d.maxCatchUp && { maxCatchUp }),
    ...rest,
  });
}

/** A stored definition with what `encodeDefinition` leaves out filled back in (a field present wins). */
function withDefaults(id: string, raw: Record<string, unknown>): Record<string, unknown> {
  const d = SCHEDULE_DEFAULTS;
  const run = raw.run;
  return {
    source: 'runtime',
    args: [],
    attempts: d.attempts,
    misfire: d.misfire,
    misfireGraceMs: d.misfireGraceMs,
    maxCatchUp: d.maxCatchUp,
    ...raw,
    id,
    run:
      run === undefined
        ? { maxInstances: d.maxInstances }
        : typeof run === 'object' && run !== null && !Array.isArray(run)
          ? { maxInstances: d.maxInstances, ...run }
          : run,
  };
}

function standIn(id: string, o: Record<string, unknown> | undefined): ScheduleDefinition {
  return {
    id,
    name: typeof o?.name === 'string' ? o.name : id,
    queue: typeof o?.queue === 'string' ? o.queue : '',
    source: o?.source === 'code' ? 'code' : 'runtime',
    trigger: { type: 'custom', kind: 'unreadable' },
    args: [],
    run: resolveRunOptions(undefined),
    attempts: SCHEDULE_DEFAULTS.attempts,
    misfire: SCHEDULE_DEFAULTS.misfire,
    misfireGraceMs: SCHEDULE_DEFAULTS.misfireGraceMs,
    maxCatchUp: 0,
  };
}

/**
 * `"name":"..."` and `"queue":"..."` at the top of a stored definition: written name and queue first
 * (`encodeDefinition`), after the id by earlier releases.
 */
const NAME_RE = /^\{(?:"id":"(?:[^"\\]|\\.)*",)?"name":"((?:[^"\\]|\\.)*)","queue":"((?:[^"\\]|\\.)*)"/;

/**
 * A stored definition's name and queue, for listing thousands at once: read from the JSON's first keys
 * when it has the shape `encodeDefinition()` writes (name, queue first; id first before), else by a full parse; an
 * unreadable definition is listed under its id.
 */
export function peekNameAndQueue(id: string, json: string): { name: string; queue: string } {
  const m = NAME_RE.exec(json);
  if (m) {
    try {
      return { name: JSON.parse(`"${m[1]}"`) as string, queue: JSON.parse(`"${m[2]}"`) as string };
    } catch {
      // fall through to a full parse
    }
  }
  try {
    const def = JSON.parse(json) as { name?: unknown; queue?: unknown };
    return {
      name: typeof def.name === 'string' ? def.name : id,
      queue: typeof def.queue === 'string' ? def.queue : '',
    };
  } catch {
    return { name: id, queue: '' }; // a definition we cannot read is still listed under its id
  }
}
