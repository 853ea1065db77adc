import { parseRecord, type RunRecord } from './run-record.js';

/**
 * The stored form of a run record: one Redis hash per occurrence (`rec:<id>:<field>`, keys.ts), one
 * hash field per fact of `RunRecord`, its value a string. Scripts write a record with `HSET` (and
 * `HSETNX outcome enqueued`, `HDEL` for a fact removed) from arguments that are already strings, and
 * never decode it; this file is the one encoder of those arguments and the one decoder of the hash.
 *
 * `scheduleId` and `fireAt` are not stored: the key and the occurrence field say them. Numbers are
 * written in decimal, booleans as `1`; the nested facts (`previousAttempts`, `standsFor`, `coalescedBefore`) are JSON
 * text written by the caller and read back here (Lua only stores them).
 *
 * Records written by earlier releases are JSON under the occurrence field of the schedule's `runs:<id>`
 * hash (`parseRecord`); a reader merges both forms (`mergeForms`).
 */

const NUMBERS = new Set<string>([
  'coalesced',
  'standIn',
  'enqueuedAt',
  'startedAt',
  'finishedAt',
  'attempts',
  'claimedAt',
  'fencingToken',
  'capDelayMs',
]);
const BOOLEANS = new Set<string>(['reclaimed', 'buffered']);
const NESTED = new Set<string>(['previousAttempts', 'standsFor', 'coalescedBefore']);
/** Stored as one field per occurrence, `c<ms after the run's fire time>` (see `RunRecord.coalescedAfter`). */
const AFTER = 'coalescedAfter';
const AFTER_FIELD = /^c\d+$/;
/** Said by the key and the occurrence field, not stored. */
const IMPLIED = new Set<string>(['scheduleId', 'fireAt']);

/** A patch as script arguments: `set` the name/value pairs to write, `drop` the names to remove. */
export interface PatchArgs {
  set: string[];
  /** Comma-separated names (fact names never hold a comma); '' for none. */
  drop: string;
}

/**
 * Encode a patch (`null` removes a fact; `undefined` leaves it) as script arguments; the facts named
 * in `leaveOut` are left out (ones the script writes itself), as if undefined.
 */
export function patchArgs(patch: { readonly [k: string]: unknown }, leaveOut?: readonly string[]): PatchArgs {
  const set: string[] = [];
  const drop: string[] = [];
  for (const name in patch) {
    if (IMPLIED.has(name) || leaveOut?.includes(name)) continue;
    const v = patch[name];
    if (v === undefined) continue;
    if (name === AFTER) {
      // one field per occurrence, added to the record without reading it (a new field per claim)
      for (const ms of v as number[]) set.push(`c${ms}`, '1');
      continue;
    }
    if (v === null) drop.push(name);
    else set.push(name, factText(name, v));
  }
  return { set, drop: drop.join(',') };
}

function factText(name: string, v: unknown): string {
  if (NESTED.has(name)) return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

/** The number of pairs then the pairs: how a script reads a variable-length patch from its ARGV. */
export function counted(set: readonly string[]): (string | number)[] {
  return [set.length / 2, ...set];
}

/** The fire time an occurrence field stands for (`<time>`, `m<time>`, `b<time>`). */
export function fireTimeOf(field: string): number {
  return Number(field.charCodeAt(0) > 57 ? field.slice(1) : field);
}

/** Decode a record hash (`HGETALL`); null when it is empty (no record in this form). */
export function recordFromHash(
  hash: Record<string, string> | null | undefined,
  scheduleId: string,
  field: string,
): RunRecord | null {
  if (!hash) return null;
  const names = Object.keys(hash);
  if (names.length === 0) return null;
  const r: Record<string, unknown> = { scheduleId, fireAt: fireTimeOf(field) };
  for (const name of names) {
    const v = hash[name]!;
    if (AFTER_FIELD.test(name)) {
      const after = (r[AFTER] ??= []) as number[];
      after.push(Number(name.slice(1)));
      continue;
    }
    if (NUMBERS.has(name)) r[name] = Number(v);
    else if (BOOLEANS.has(name)) r[name] = v === '1';
    else if (NESTED.has(name)) r[name] = parseJson(v);
    else r[name] = v;
  }
  if (r.kind === undefined)
    r.kind = field.startsWith('m') ? 'manual' : field.startsWith('b') ? 'backfill' : 'scheduled';
  return r as unknown as RunRecord;
}

function parseJson(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/**
 * One occurrence's record from both forms: the old JSON (an earlier release's write) under the facts of
 * the hash (this release's writes on top of it), by the merge rule: an `enqueued` outcome never
 * replaces an outcome already there.
 */
export function mergeForms(old: RunRecord | null, current: RunRecord | null): RunRecord | null {
  if (!old) return current;
  if (!current) return old;
  const merged = { ...old, ...current };
  if (current.outcome === 'enqueued' && old.outcome !== undefined) merged.outcome = old.outcome;
  return merged;
}

/** Decode an earlier release's JSON record (the `runs:<id>` hash's values). */
export const recordFromJson = parseRecord;

/** The facts of an `enqueued` record, as name/value pairs (the completion's, `complete-n`). */
export function enqueuedFacts(
  e: {
    kind: string;
    queue: string;
    jobId: string;
    enqueuedAt?: number | undefined;
    replica?: string | undefined;
    claimedAt?: number | undefined;
    reclaimed?: boolean | undefined;
    capDelayMs?: number | undefined;
  },
  now: number,
): string[] {
  const set = [
    'outcome',
    'enqueued',
    'kind',
    e.kind,
    'enqueuedAt',
    String(e.enqueuedAt ?? now),
    'queue',
    e.queue,
  ];
  set.push('jobId', e.jobId);
  if (e.replica !== undefined) set.push('replica', e.replica);
  if (e.claimedAt !== undefined) set.push('claimedAt', String(e.claimedAt));
  if (e.reclaimed) set.push('reclaimed', '1');
  if (e.capDelayMs) set.push('capDelayMs', String(e.capDelayMs));
  return set;
}
