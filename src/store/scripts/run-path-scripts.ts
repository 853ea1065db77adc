import type { Redis } from 'ioredis';
import { BullbeatError } from '../../errors/bullbeat-error.js';
import type { Completion, SkipReason, SlotRule } from '../forms/index.js';
import { counted, enqueuedFacts, patchArgs } from '../forms/index.js';
import type { Keys } from '../keys/index.js';
import { ScriptBatcher } from './script-batcher.js';
import { codeName, RunStartCode, yes } from './script-codes.js';
import { itemArgs, ScriptCaller, type ScriptLayout, scriptArgs } from './script-layout.js';
import { COMPLETE, FINISH_RUNS, START_RUNS } from './script-layouts.js';

type Patch = { readonly [name: string]: unknown };

/** What `start-runs-1` decided for one run. */
export type RunStart =
  /**
   * `at`: Redis TIME of the start (the record's `startedAt`). `buffered`: it waited for the slot (a
   * start written behind: its `running` record, which says so, is the caller's to write).
   */
  | {
      status: 'started';
      live: number;
      fencingToken: number;
      at: number;
      buffered: boolean;
      /** Written behind: the record is this job's `enqueued` one, with its queue, job id and kind. */
      factsKnown?: boolean;
    }
  /** `at`: Redis TIME of the skip (the record's `finishedAt`). */
  | {
      status: 'skipped';
      live: number;
      reason: SkipReason;
      at: number;
      /** Written behind: the `skipped` record lacks the job's facts (queue, job id, kind): the caller writes them. */
      factsMissing?: boolean;
    }
  /** Not now: a retry owed its run, or an occurrence buffered for the slot, asks again later. */
  | { status: 'wait'; live: number }
  /** Asked as a first delivery, but the record shows an earlier attempt of this job: read it, ask again. */
  | { status: 'reread' }
  /**
   * Asked as a first delivery, but the record shows this job succeeded, was skipped or cancelled: the
   * same occurrence enqueued again after its job left BullMQ. Nothing was taken or written.
   */
  | { status: 'ran' }
  /**
   * Another add of the same job id started (or skipped) the occurrence already (its start mark names
   * another add): this one was enqueued by an enqueuer that had lost it. Its `skipped` record (reason
   * `ran-already`) is written where no record says more; `at` is Redis TIME.
   */
  | { status: 'refused'; at: number; factsMissing?: boolean };

/** What `finish-runs-5` did for one run. */
export interface RunFinish {
  /** False when a newer run of the occurrence holds its record (fenced off): nothing was written. */
  written: boolean;
  /** The schedule was paused by this failure (`pauseOnFailure`). */
  paused: boolean;
  /** The job id next in line for the slot (a retry owed it, or a buffered occurrence), if any. */
  next?: string;
}

/** One run to start (`start-runs-1`, per run). */
export interface StartRunArgs {
  scheduleId: string;
  leaseId: string;
  rule: SlotRule;
  /** A retry owed its run (an attempt after one that started): its job id is the one owed the slot. */
  owed: boolean;
  jobId: string;
  /** The occurrence field (`occurrenceField` of `fireAt`). */
  field: string;
  fireAt: number;
  /** No record was read: taken for the job's first delivery. */
  firstDelivery: boolean;
  /**
   * The occurrence's start mark (`taken:<id>`, start-runs-1): `stamp` names this add of the job
   * (BullMQ's `timestamp`); `always` marks every start (a backfill's, a catch-up's), else only an
   * occurrence whose claim was taken over. Undefined: no mark (a manual run).
   */
  mark?: { stamp: number; always: boolean } | undefined;
  /** The `running` and `skipped` patches; their instants (`startedAt`, `finishedAt`) are the script's. */
  running: Patch;
  skipped: Patch;
  /**
   * The `running` record is written behind by the caller (with the outcome, or by its flush): the
   * script decides the start but neither writes nor indexes it (start-runs-1, *Written behind*).
   */
  runningBehind?: boolean;
}

/** One run to finish (`finish-runs-5`, per run). */
export interface FinishRunArgs {
  scheduleId: string;
  /** Undefined: the run held no slot. */
  leaseId: string | undefined;
  field: string;
  fireAt: number;
  /** The outcome; a `finishedAt` given is the script's Redis TIME, a `null` one removed. */
  outcome: Patch;
  counters: readonly string[];
  /** Undefined: a run that never started (written unfenced). */
  fencingToken: number | undefined;
  streak: 'ok' | 'failed' | undefined;
  pause: { afterFailures: number; note: string; at: number };
  /** The slot rule the run started under. */
  mode: SlotRule['mode'];
  /** It held its slot alone (one run at a time): a lease given back proves no newer run took the record. */
  sole?: boolean;
  /**
   * The outcome's `finishedAt` is written as given (the run's end, on Redis's clock, told by its
   * caller), not this call's Redis TIME: an outcome written behind, after its run ended.
   */
  finishedAtGiven?: boolean;
}

/** What `complete-n` answers. */
export interface CompleteAnswer {
  /** Claims completed (still ours, their schedule still there). */
  completed: number;
  /** Claims no longer ours: they lapsed and were taken over, and their new owner announces them. */
  lost: string[];
}

/**
 * The run path's scripts (see `ScheduleScripts`): the completion of claims,
 * and the worker runtime's start and finish of runs, each batched per partition (`ScriptBatcher`).
 */
export class RunPathScripts {
  readonly #caller: ScriptCaller;

  constructor(redis: Redis) {
    this.#caller = new ScriptCaller(redis);
  }

  /**
   * `complete-n`: complete claims of one partition made with `token`: how many were completed, and the
   * ids of the claims no longer ours (lapsed and taken over).
   */
  async complete(
    k: Keys,
    a: { completions: readonly Completion[]; now: number; token: string; historyLimit: number },
  ): Promise<CompleteAnswer> {
    const p = k.of(a.completions[0]!.claim.id);
    const { shared, own } = sharedPairs(a.completions.map((c) => enqueuedPairs(c.enqueued, a.now)));
    const items = a.completions.map((c, i) => {
      const id = c.claim.id;
      const records: (string | number)[] = [c.records.length];
      for (const r of c.records)
        records.push(r.field, r.fireAt, r.counter ?? '', ...counted(patchArgs(r.patch).set));
      return {
        keys: { runs: p.runs(id), runidx: p.runIndex(id), counts: p.counts(id) },
        values: {
          id,
          fireAt: c.claim.fireAt,
          next: c.next === null ? '-1' : c.next,
          missed: c.missedUncounted,
          coalesced: c.coalesced ?? 0,
          ran: c.enqueued?.fireAt ?? c.claim.fireAt,
          enqueued: counted(own[i]!),
          records,
        },
      };
    });
    const keys = {
      due: p.due,
      inflight: p.inflight,
      claim: p.claim,
      state: p.state,
      resched: p.resched,
      completed: p.completed,
      totals: p.totals,
    };
    const argv = { historyLimit: a.historyLimit, now: a.now, token: a.token, shared: counted(shared) };
    const [completed, ...lost] = (await this.#caller.run(
      COMPLETE,
      scriptArgs(COMPLETE, keys, argv, items),
    )) as [number, ...string[]];
    return { completed: Number(completed), lost };
  }

  /** `start-runs-1`, batched: a function starting one run on partition `lane`. */
  startRuns(
    k: Keys,
    a: { ttlMs: number; historyLimit: number; markKeptMs: number },
  ): (lane: number, run: StartRunArgs) => Promise<RunStart> {
    const l = START_RUNS;
    const batcher = new ScriptBatcher(async (lane, values) => {
      const p = k.partition(lane);
      const argv = {
        base: p.base,
        leaseTtl: a.ttlMs,
        historyLimit: a.historyLimit,
        cancelChannel: p.cancel,
        markKept: a.markKeptMs,
      };
      return (await this.#caller.run(l, [
        ...scriptArgs(l, { totals: p.totals }, argv),
        ...values,
      ])) as unknown[];
    }, 5);
    return async (lane, r) => {
      const values = {
        scheduleId: r.scheduleId,
        leaseId: r.leaseId,
        overlap: r.rule.mode,
        cap: r.rule.cap,
        jobId: r.jobId,
        fireTime: r.fireAt,
        flags: `${r.firstDelivery ? 'f' : ''}${r.runningBehind ? '' : 'w'}${r.owed ? 'o' : ''}${laneFlag(l, r.field, r.fireAt)}`,
        startMark: r.mark ? `${r.mark.always ? 'a' : 'r'}${r.mark.stamp}` : '',
        // written behind (the lean path): no facts at all; a skip says when it lacks the job's
        facts: r.runningBehind ? [] : recordFacts(r),
      };
      const [code, live, token, at, reason] = await batcher.call(lane, itemArgs(l, values));
      // per run: { code, live leases, fencing token, Redis TIME, skip reason }
      const status = codeName(l, RunStartCode, code);
      if (status === 'ran' || status === 'reread') return { status };
      const bare = String(reason).endsWith(',nofacts');
      if (status === 'refused') return { status, at: Number(at), ...(bare && { factsMissing: true }) };
      if (status === 'wait') return { status, live: Number(live) };
      if (status === 'started') {
        // (plain assignments, not conditional spreads: a spread of `false` costs a runtime call, per run)
        const started: RunStart = {
          status,
          live: Number(live),
          fencingToken: Number(token),
          at: Number(at),
          buffered: String(reason).startsWith('buffered'),
        };
        if (String(reason).endsWith(',facts')) started.factsKnown = true;
        return started;
      }
      return {
        status,
        live: Number(live),
        reason: String(reason).replace(',nofacts', '') as SkipReason,
        at: Number(at),
        ...(bare && { factsMissing: true }),
      };
    };
  }

  /** `finish-runs-5`, batched: a function finishing one run on partition `lane`. */
  finishRuns(
    k: Keys,
    a: { historyLimit: number; auditLimit: number },
  ): (lane: number, run: FinishRunArgs) => Promise<RunFinish> {
    const l = FINISH_RUNS;
    const batcher = new ScriptBatcher(async (lane, values) => {
      const p = k.partition(lane);
      const keys = { totals: p.totals, state: p.state, due: p.due, resched: p.resched, notes: p.pauseNotes };
      const argv = {
        base: p.base,
        historyLimit: a.historyLimit,
        wakeChannel: p.wake,
        auditKept: a.auditLimit,
      };
      return (await this.#caller.run(l, [...scriptArgs(l, keys, argv), ...values])) as unknown[];
    }, 3);
    return async (lane, r) => {
      // a `finishedAt` is the script's Redis TIME, and a `fencingToken` that is the run's its own: not sent
      const { finishedAt, fencingToken } = r.outcome;
      const given = r.finishedAtGiven === true && typeof finishedAt === 'number';
      const ownToken = fencingToken !== undefined && fencingToken === r.fencingToken;
      const p = patchArgs(r.outcome, given ? (ownToken ? TOKEN : NONE) : ownToken ? BOTH : FINISHED);
      const { afterFailures, note, at } = r.pause;
      // the streak is kept only for a schedule with `pauseOnFailure` (finish-runs-5)
      const streak = afterFailures > 0 && r.streak ? (r.streak === 'ok' ? 'o' : 'x') : '';
      const stamped = given || finishedAt === null || finishedAt === undefined ? '' : 't';
      const removes = finishedAt === null ? (p.drop ? `${p.drop},finishedAt` : 'finishedAt') : p.drop;
      const values = {
        scheduleId: r.scheduleId,
        leaseId: r.leaseId ?? '',
        fireTime: r.fireAt,
        flags: `${stamped}${ownToken ? 'k' : ''}${r.sole ? 'e' : ''}${streak}${removes ? 'd' : ''}${laneFlag(l, r.field, r.fireAt)}`,
        counters: r.counters.join(','),
        fencingToken: r.fencingToken ?? '',
        policy: r.mode,
        pause: streak === 'x' ? [afterFailures, JSON.stringify({ note, by: 'pauseOnFailure', at })] : [],
        patch: counted(p.set),
        removes: removes ? removes : [],
      };
      // per run: { 1 written | 0 fenced off, 1 paused now | 0, the job id next in line ('') }
      const [written, paused, next] = await batcher.call(lane, itemArgs(l, values));
      const done: { written: boolean; paused: boolean; next?: string } = {
        written: yes(l, written),
        paused: yes(l, paused),
      };
      if (next) done.next = String(next);
      return done;
    };
  }
}

/** What a finish leaves out of its patch (`patchArgs`): its Redis TIME, its own token, both, or none. */
const FINISHED = ['finishedAt'] as const;
const TOKEN = ['fencingToken'] as const;
const BOTH = ['finishedAt', 'fencingToken'] as const;
const NONE = [] as const;

/**
 * The occurrence field as the run scripts' flags carry it (`occurrenceField`): '' the fire time itself,
 * `m` a manual run's `m<fire time>`, `b` a backfilled occurrence's `b<fire time>`.
 */
function laneFlag(l: ScriptLayout, field: string, fireAt: number): '' | 'm' | 'b' {
  const time = String(fireAt);
  if (field === time) return '';
  if (field === `m${time}`) return 'm';
  if (field === `b${time}`) return 'b';
  throw new BullbeatError(
    `store script ${l.file}: occurrence field "${field}" is not one of fire time ${time}`,
  );
}

/**
 * A start that writes its `running` record (`w`): the counts of the pairs only the skip sets, both
 * set and only the run sets, the pairs, and the names the run removes. The script writes the outcomes
 * and the instants as its Redis TIME (`startedAt`, a skip's `finishedAt`): not sent; the facts both
 * records share are sent once.
 */
function recordFacts(r: StartRunArgs): (string | number)[] {
  const { startedAt: _s, outcome: _r, ...runningFacts } = r.running;
  const { finishedAt: _f, outcome: _k, ...skippedFacts } = r.skipped;
  const running = patchArgs(runningFacts);
  const facts = sharedFacts(running.set, patchArgs(skippedFacts).set);
  return [
    facts.skipOnly.length / 2,
    facts.shared.length / 2,
    facts.runOnly.length / 2,
    ...facts.skipOnly,
    ...facts.shared,
    ...facts.runOnly,
    running.drop,
  ];
}

/**
 * The `running` and `skipped` patches' pairs split into the pairs only the skip sets, the pairs both
 * set alike (the job's facts), and the pairs only the run sets: start-runs writes either record from
 * one contiguous stretch of its arguments.
 */
function sharedFacts(
  running: readonly string[],
  skipped: readonly string[],
): { skipOnly: string[]; shared: string[]; runOnly: string[] } {
  const skip = new Map<string, string>();
  for (let j = 0; j < skipped.length; j += 2) skip.set(skipped[j]!, skipped[j + 1]!);
  const shared: string[] = [];
  const runOnly: string[] = [];
  for (let j = 0; j < running.length; j += 2) {
    const name = running[j]!;
    const value = running[j + 1]!;
    if (skip.get(name) === value) {
      shared.push(name, value);
      skip.delete(name);
    } else runOnly.push(name, value);
  }
  const skipOnly: string[] = [];
  for (const [name, value] of skip) skipOnly.push(name, value);
  return { skipOnly, shared, runOnly };
}

/** The `enqueued` record's pairs for `complete-n` (none when nothing was enqueued), with its `also` facts. */
/**
 * The pairs every non-empty list of `lists` holds alike (name and value), when two or more are not
 * empty, and each list without them: what a call's `enqueued` records share is sent once.
 */
export function sharedPairs(lists: readonly string[][]): { shared: string[]; own: string[][] } {
  let first: string[] | undefined;
  let full = 0;
  for (const l of lists) {
    if (l.length === 0) continue;
    first ??= l;
    full++;
  }
  if (first === undefined || full < 2) return { shared: [], own: lists as string[][] };
  const shared: string[] = [];
  for (let i = 0; i < first.length; i += 2) {
    const name = first[i]!;
    const value = first[i + 1]!;
    if (lists.every((l) => l.length === 0 || pairValue(l, name) === value)) shared.push(name, value);
  }
  if (shared.length === 0) return { shared, own: lists as string[][] };
  const own = lists.map((l) => {
    if (l.length === 0) return l;
    const kept: string[] = [];
    for (let i = 0; i < l.length; i += 2)
      if (pairValue(shared, l[i]!) === undefined) kept.push(l[i]!, l[i + 1]!);
    return kept;
  });
  return { shared, own };
}

function pairValue(pairs: readonly string[], name: string): string | undefined {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === name) return pairs[i + 1];
  return undefined;
}

function enqueuedPairs(e: Completion['enqueued'], now: number): string[] {
  if (e === undefined) return [];
  const set = enqueuedFacts(e, now);
  if (e.also !== undefined) for (const v of patchArgs(e.also).set) set.push(v);
  return set;
}
