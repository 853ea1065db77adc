import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, ScheduleOptionsError } from '../../errors/index.js';
import type {
  BackfillOverride,
  BackfillVerdict,
  OwedRun,
  ScheduleDefinition,
  ScheduleStore,
} from '../../store/index.js';
import { occurrenceJobId, type PauseNotes, StateCode } from '../../store/index.js';
import { checkedNextFire } from '../../triggers/checked-next-fire.js';
import type { Trigger } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import { triggerTimezone } from '../../triggers/trigger-timezone.js';
import { withoutJitter } from '../../triggers/without-jitter.js';
import {
  type BackfillOccurrence,
  type BackfillOptions,
  type BackfillProgress,
  type BackfillResult,
  type BackfillStatus,
  type BackfillStop,
  type ResolvedBackfillOptions,
  resolveBackfillOptions,
} from '../contract/index.js';
import { enqueueOwed, type OwedRunsContext, overriddenDefinition, overriddenMark } from './owed-runs.js';

/** What a backfill needs from the manager. */
export interface BackfillContext extends OwedRunsContext {
  store: ScheduleStore;
  /** The pause notes: when a schedule paused while its backfill ran was paused. */
  notes: PauseNotes;
  /** How long past its planned time a taken occurrence may wait before a replica enqueues it (ms). */
  owedGraceMs: number;
  /** The trigger of a stored definition (a custom one only if this process defines it). */
  triggerOf(def: ScheduleDefinition): Trigger | undefined;
  /**
   * What the paced enqueue measures and waits by: the process's monotonic clock and timers, or the
   * manual clock of a test (`hooks.clock`), which then drives the pace instead of sleeping through it.
   */
  pace: { now(): number; setTimeout(callback: () => void, ms: number): unknown };
}

/** Occurrences judged per round trip. */
const CHECK_BATCH = 1000;

/**
 * The planned occurrences of `def` in `[from, to)`, walked with its trigger's own `nextFire` (zone,
 * DST rules and exclusions included; jitter left out, so that every process finds the same
 * instants), inside the schedule's `startAt`/`endAt`. More than `max` is a `ScheduleOptionsError`
 * naming `to`.
 */
export function backfillInstants(
  def: ScheduleDefinition,
  trigger: Trigger,
  from: number,
  to: number,
  max: number,
): number[] {
  const lo = Math.max(from, def.startAt ?? from);
  const hi = def.endAt !== undefined ? Math.min(to, def.endAt + 1) : to;
  const out: number[] = [];
  let t = checkedNextFire(trigger, null, lo - 1);
  while (t !== null && t < hi) {
    if (t >= lo) {
      if (out.length === max) {
        throw new ScheduleOptionsError(
          def.id,
          'to',
          `the range holds more than ${max} occurrences (the ${max + 1}th is at ${new Date(t).toISOString()}): narrow it, or raise maxOccurrences`,
        );
      }
      out.push(t);
    }
    t = checkedNextFire(trigger, t, t);
  }
  return out;
}

/** The trigger a backfill walks: the stored one without jitter, or the code's custom trigger. */
function walkTrigger(ctx: BackfillContext, def: ScheduleDefinition): Trigger {
  if (def.trigger.type !== 'custom') return triggerFromJSON(withoutJitter(def.trigger));
  const custom = ctx.triggerOf(def);
  if (!custom) {
    throw new ScheduleOptionsError(
      def.id,
      'trigger',
      `is a custom trigger (${def.trigger.kind}) that this process does not define: backfill it from a process whose code defines it`,
    );
  }
  return custom;
}

const STATUS: Record<BackfillVerdict, BackfillStatus> = {
  run: 'enqueued',
  ran: 'ran',
  backfilled: 'backfilled',
  scheduled: 'scheduled',
  future: 'future',
  excluded: 'not-selected',
};

/**
 * Backfill a schedule (Temporal's schedule backfill): the occurrences of `[from, to)` that nothing
 * ran are enqueued, at most `ratePerSecond`, each with its own job id (`bb-<id>-b<fireAt>`) and an
 * `enqueued` record of kind `backfill` (field `b<fireAt>`). Only an occurrence that the schedule's fire
 * loop never judged (before the schedule was created, or while it was paused) or that it recorded as
 * not run (`missed`, `skipped`) may run; one in the ledger (a backfill or a resume's catch-up took it),
 * one the schedule's own firing has ahead and one in the future are listed, not enqueued (see
 * `lua/backfill-take-11.lua`). Bad options, an unknown schedule, a trigger that cannot be walked or a
 * range over `maxOccurrences` throw before anything is enqueued.
 */
export async function runBackfill(
  ctx: BackfillContext,
  id: string,
  options: BackfillOptions,
): Promise<BackfillResult> {
  const { done } = await startBackfill(ctx, id, options);
  return done;
}

/** A backfill under way: what it found (before anything is enqueued) and its enqueueing. */
export interface BackfillRun {
  /**
   * What the backfill found and takes. A pause of the schedule while it enqueues updates it (`stopped`,
   * `enqueued`, the statuses of what it did not enqueue) before `done` settles.
   */
  result: BackfillResult;
  /**
   * Settles with `result` when every occurrence it enqueues is enqueued and recorded, or when a pause
   * of the schedule stopped it (at once for a dry run).
   */
  done: Promise<BackfillResult>;
}

/**
 * `runBackfill` in two steps: checks, walks and judges the range (every error is thrown from here,
 * before anything is enqueued), then enqueues in the background (`done`).
 */
export async function startBackfill(
  ctx: BackfillContext,
  id: string,
  options: BackfillOptions,
): Promise<BackfillRun> {
  const o = resolveBackfillOptions(id, options);
  const row = await ctx.store.get(id);
  if (!row) throw new ScheduleNotFoundError(id);
  const def = row.def;
  const instants = backfillInstants(def, walkTrigger(ctx, def), o.from, o.to, o.maxOccurrences);
  const occurrences: BackfillOccurrence[] = [];
  // fire time -> the Redis time by which this backfill owes its add (a sweep may take it after)
  const owedBy = new Map<number, number>();
  /** When the backfill began (Redis time of its first judgement): a pause after it stops it. */
  let began: number | undefined;
  const override = overrideOf(o);
  const take = o.dryRun
    ? undefined
    : {
        overlap: o.overlap,
        from: o.from,
        to: o.to,
        by: o.by,
        overrides: o.overrides.names.join(','),
        // kept with each occurrence taken: whoever enqueues it (a sweep too) runs it with the override
        override: override && { id: randomUUID(), value: override },
      };
  for (let i = 0; i < instants.length; i += CHECK_BATCH) {
    const batch = instants.slice(i, i + CHECK_BATCH).map((fireAt, j) => ({
      fireAt,
      // when the paced enqueue reaches it at the latest (it enqueues no more than this one's index)
      withinMs: ((i + j) / o.ratePerSecond) * 1000 + ctx.owedGraceMs,
    }));
    const checked = await ctx.ledger.judge(id, batch, take, o.only);
    if (!checked) throw new ScheduleNotFoundError(id);
    began ??= checked.now;
    batch.forEach(({ fireAt, withinMs }, j) => {
      const verdict = checked.verdicts[j] ?? 'ran';
      if (verdict === 'run') owedBy.set(fireAt, checked.now + Math.ceil(withinMs));
      const status = verdict === 'run' && o.dryRun ? 'to-enqueue' : STATUS[verdict];
      occurrences.push({
        fireAt,
        status,
        ...(verdict === 'run' && { jobId: occurrenceJobId(id, fireAt, 'backfill') }),
      });
    });
  }
  const toRun = occurrences.filter((x) => x.jobId !== undefined);
  const result: BackfillResult = {
    scheduleId: id,
    from: o.from,
    to: o.to,
    dryRun: o.dryRun,
    timezone: def.trigger.type === 'custom' ? null : triggerTimezone(def.trigger),
    occurrences,
    enqueued: toRun.length,
    skipped: occurrences.length - toRun.length,
  };
  const since = { at: began ?? 0, paused: row.state.status === StateCode.paused };
  const done = o.dryRun
    ? Promise.resolve(result)
    : enqueuePaced(ctx, def, result, since, o, owedBy, override);
  return { result, done };
}

/** What a backfill's runs carry instead of the schedule's, and who asked; undefined when nothing. */
function overrideOf(o: ResolvedBackfillOptions): BackfillOverride | undefined {
  const { names, data, jobOptions } = o.overrides;
  if (names.length === 0) return undefined;
  return {
    names: [...names],
    ...(names.includes('data') && { data }),
    ...(jobOptions !== undefined && { jobOptions }),
    by: o.by.actor,
  };
}

/**
 * Enqueue the taken occurrences at most `ratePerSecond`, in batches of a tenth of it, recording each
 * batch and reporting progress. Each was taken into the ledger when judged: a backfill whose process
 * stops here leaves the rest owed, and a scheduler replica enqueues them once their time has passed.
 * A backfill that stalls past that time (SIGSTOP, a VM pause) adds none that a replica's sweep took
 * meanwhile (`BackfillLedger.keep`, before each batch's add; a job that gets through is refused at its
 * start). Before each batch it checks that its schedule was not paused since it began (`since`): a pause
 * stops it, gives the rest back to the ledger (`stopAtPause`) and marks the result `stopped: 'paused'`.
 */
async function enqueuePaced(
  ctx: BackfillContext,
  def: ScheduleDefinition,
  result: BackfillResult,
  since: PauseWatch,
  o: ResolvedBackfillOptions,
  owedBy: ReadonlyMap<number, number>,
  override: BackfillOverride | undefined,
): Promise<BackfillResult> {
  const toRun = result.occurrences.filter((x) => x.jobId !== undefined);
  // the runs' definition: the schedule's, with what this backfill overrides laid over it
  const runDef = override ? overriddenDefinition(def, override) : def;
  const overridden = override && overriddenMark(override);
  const batchSize = Math.max(1, Math.min(1000, Math.floor(o.ratePerSecond / 10)));
  const started = ctx.pace.now();
  let sent = 0;
  const report = (done: boolean, stopped?: BackfillStop) => {
    const progress: BackfillProgress = {
      scheduleId: def.id,
      enqueued: sent,
      total: toRun.length,
      done,
      ...(stopped && { stopped }),
    };
    ctx.events.emit('backfill', progress);
    o.onProgress?.(progress);
  };
  const runOf = (x: BackfillOccurrence): OwedRun => ({
    scheduleId: def.id,
    fireAt: x.fireAt,
    lane: 'backfill',
    overlap: o.overlap,
  });
  for (let i = 0; i < toRun.length; i += batchSize) {
    const wait = started + (sent / o.ratePerSecond) * 1000 - ctx.pace.now();
    if (wait > 0) await new Promise<void>((resolve) => ctx.pace.setTimeout(resolve, wait));
    if (await pausedSince(ctx, def.id, since)) {
      await stopAtPause(ctx, result, toRun.slice(i), runOf);
      report(true, 'paused');
      return result;
    }
    const batch = toRun.slice(i, i + batchSize);
    const runs = batch.map(runOf);
    const swept = await ctx.ledger.keep(
      def.id,
      runs.map((run) => ({ run, owedBy: owedBy.get(run.fireAt) ?? 0 })),
      ctx.owedGraceMs,
    );
    const ours = swept.size === 0 ? runs : runs.filter((r) => !swept.has(r));
    if (!(await enqueueOwed(ctx, runDef, ours, overridden))) throw new ScheduleNotFoundError(def.id);
    sent += batch.length;
    report(sent === toRun.length);
  }
  if (toRun.length === 0) report(true);
  return result;
}

/** When a backfill began (Redis ms) and whether its schedule was paused then. */
interface PauseWatch {
  at: number;
  paused: boolean;
}

/**
 * Whether schedule `id` is paused by a pause that came after the backfill began: its pause note's `at`
 * is not before the beginning (a note-less pause counts when the schedule was not paused then). A
 * backfill of a schedule paused before it began runs on: backfilling a paused schedule is deliberate.
 */
async function pausedSince(ctx: BackfillContext, id: string, since: PauseWatch): Promise<boolean> {
  const row = await ctx.store.get(id);
  if (row?.state.status !== StateCode.paused) return false;
  const [note] = await ctx.notes.getMany([id]);
  // a note of the very millisecond the backfill began is the pause it found, when it found one (a
  // manual clock in tests makes that millisecond common)
  return note ? note.at > since.at || (note.at === since.at && !since.paused) : !since.paused;
}

/**
 * A pause stopped the backfill: the occurrences it took and did not enqueue leave the ledger and the
 * owed set (no replica enqueues them; a later backfill or a resume's catch-up may take them), and the
 * result says so.
 */
async function stopAtPause(
  ctx: BackfillContext,
  result: BackfillResult,
  rest: readonly BackfillOccurrence[],
  runOf: (x: BackfillOccurrence) => OwedRun,
): Promise<void> {
  await ctx.ledger.release(result.scheduleId, rest.map(runOf));
  for (const x of rest) {
    x.status = 'stopped';
    delete x.jobId;
  }
  result.enqueued -= rest.length;
  result.skipped += rest.length;
  result.stopped = 'paused';
}
