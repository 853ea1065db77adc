import type { CoalesceCause, RunRecord } from '../store/run-record.js';
import type { WhyCause, WhyFact, WhyFacts, WhyReport } from './why-types.js';

const iso = (t: number) => new Date(t).toISOString();
const secs = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * The chain of facts of one occurrence (pure): the instant its trigger gives, the claim, the job, the
 * worker, the outcome; or the first missing link, said plainly. See `WhyCause`.
 */
export function explainOccurrence(f: WhyFacts): WhyReport {
  const s = f.schedule;
  const facts: WhyFact[] = [];
  const base = { scheduleId: s.id, name: s.name, queue: s.queue, at: f.at, now: f.now };
  const done = (cause: WhyCause | null, summary: string, record: RunRecord | null = null): WhyReport => ({
    ...base,
    occurrence: f.occurrence,
    fireAt: record?.fireAt ?? null,
    record,
    facts,
    ran: cause === null,
    cause,
    summary,
  });

  const occ = f.occurrence;
  const record = findRecord(f);
  if (occ) {
    const zone = occ.zone === 'UTC' ? '' : ` = ${occ.local} in ${occ.zone}`;
    const jitter = occ.jitterMs > 0 ? `, plus up to ${secs(occ.jitterMs)} of jitter` : '';
    facts.push({
      link: 'trigger',
      at: occ.planned,
      text: `${s.trigger}: occurrence at ${iso(occ.planned)}${zone}${jitter}`,
      ok: true,
    });
    if (occ.dst) facts.push({ link: 'trigger', at: occ.planned, text: occ.dst, ok: true });
  } else if (record) {
    facts.push({
      link: 'trigger',
      at: record.fireAt,
      text: `${s.trigger} (its instants cannot be computed here): the latest record is at ${iso(record.fireAt)}`,
      ok: true,
    });
  } else {
    if (s.startAt !== undefined && s.startAt > f.at) {
      return done('not-started', `the schedule starts at ${iso(s.startAt)}, after ${iso(f.at)}`);
    }
    if (!s.triggerKnown) {
      return done(
        'unrecorded',
        `${s.trigger}: its instants cannot be computed in this process, and no record is at or before ${iso(f.at)}`,
      );
    }
    return done('no-occurrence', `${s.trigger}: it gives no occurrence at or before ${iso(f.at)}`);
  }
  if (record) return explainRecord(f, record, facts, done);
  return explainUnrecorded(f, occ!.planned, occ!.planned + occ!.jitterMs, facts, done);
}

type Done = (cause: WhyCause | null, summary: string, record?: RunRecord | null) => WhyReport;

/** The record of the occurrence: a scheduled or catch-up one whose fire time is its instant (+ jitter). */
function findRecord(f: WhyFacts): RunRecord | null {
  const occ = f.occurrence;
  const scheduled = f.records.filter((r) => r.kind !== 'manual' && r.kind !== 'backfill');
  if (!occ) return scheduled.find((r) => r.fireAt <= f.at) ?? null;
  return (
    scheduled.find((r) => r.fireAt >= occ.planned && r.fireAt <= occ.planned + occ.jitterMs) ??
    // not recorded as scheduled, but a backfill ran it: its record tells the rest
    f.records.find((r) => r.kind === 'backfill' && r.fireAt === occ.planned) ??
    null
  );
}

function explainUnrecorded(f: WhyFacts, from: number, to: number, facts: WhyFact[], done: Done): WhyReport {
  const s = f.schedule;
  if (from > f.now) return done('not-due-yet', `not due yet: it fires at ${iso(from)}`);
  // a claim in flight holds this occurrence, or an earlier one that every later one waits behind
  if (f.claim && f.claim.fireAt <= to) {
    const who = f.claim.replica ?? 'a replica';
    const which =
      f.claim.fireAt < from
        ? ` its earlier occurrence ${iso(f.claim.fireAt)} (later ones wait behind it)`
        : '';
    if (f.claim.leaseExpiresAt < f.now) {
      facts.push({
        link: 'claim',
        text: `claimed${which} by ${who}; its lease lapsed at ${iso(f.claim.leaseExpiresAt)}`,
        ok: false,
      });
      return done(
        'replica-died',
        `claimed${which} by ${who}, which died (or stalled) before enqueueing it: its lease lapsed at ${iso(f.claim.leaseExpiresAt)} and no live replica has taken it over yet (is any scheduler replica running?)`,
      );
    }
    facts.push({
      link: 'claim',
      text: `claimed by ${who} (lease until ${iso(f.claim.leaseExpiresAt)})`,
      ok: true,
    });
    return done('claimed', `claimed by ${who}: it is being enqueued`);
  }
  if (s.status === 'errored' && s.error) {
    const since = s.error.at !== null ? ` since ${iso(s.error.at)}` : '';
    facts.push({
      link: 'schedule',
      ...(s.error.at !== null && { at: s.error.at }),
      text: `errored${since}: ${s.error.reason}`,
      ok: false,
    });
    return done(
      'errored',
      `errored schedule${since}: ${s.error.reason} (fix the trigger or definition, then resume)`,
    );
  }
  if (s.status === 'paused') {
    const why = s.orphaned ? ' (orphaned: no deployed code defines it any more)' : '';
    const n = s.pauseNote;
    const who = n
      ? `; paused by ${n.by} at ${iso(n.at)}${n.note !== '' ? `: ${n.note}` : ''}`
      : '; when and by whom is not recorded';
    facts.push({ link: 'schedule', ...(n && { at: n.at }), text: `paused${why}${who}`, ok: false });
    return done(
      'paused',
      `the schedule is paused${why}: a paused schedule fires nothing and records nothing`,
    );
  }
  if (s.status === 'active' && s.nextRunTime !== null && s.nextRunTime <= to) {
    const waited = f.now - s.nextRunTime;
    if (waited > f.lateThresholdMs) {
      facts.push({
        link: 'claim',
        at: s.nextRunTime,
        text: `due at ${iso(s.nextRunTime)}, not claimed ${secs(waited)} later`,
        ok: false,
      });
      return done(
        'no-replica',
        `no scheduler replica alive at ${iso(s.nextRunTime)}: due then and still not claimed at ${iso(f.now)} (start a scheduler replica${s.triggerKnown ? '' : ' whose code defines this custom trigger'})`,
      );
    }
    return done('claimed', `due at ${iso(s.nextRunTime)}: a replica claims it now`);
  }
  if (s.status === 'completed' || s.status === 'cancelled') {
    facts.push({ link: 'schedule', text: `the schedule is ${s.status}`, ok: false });
  }
  if (s.createdAt !== null && s.createdAt > to) {
    return done('unrecorded', `the schedule was created at ${iso(s.createdAt)}, after this occurrence`);
  }
  const oldest = f.records.at(-1);
  if (oldest && f.records.length >= f.historyLimit && oldest.fireAt > to) {
    return done(
      'unrecorded',
      `older than the kept history (the ${f.historyLimit} newest records, from ${iso(oldest.fireAt)})`,
    );
  }
  const standIn = f.records.find((o) => o.standsFor && o.standsFor.from <= to && o.standsFor.to >= from);
  if (standIn?.standsFor) {
    const { cause, count } = standIn.standsFor;
    facts.push({
      link: 'enqueue',
      text: `coalesced (${COALESCE_CAUSE[cause]}): the run of ${iso(standIn.fireAt)} stands for it and ${count - 1} other(s)`,
      ok: false,
    });
    return done(
      'coalesced',
      `coalesced by backpressure: ${COALESCE_CAUSE[cause]}; the run of ${iso(standIn.fireAt)} (${standIn.outcome ?? 'pending'}) stands for it`,
    );
  }
  if (s.status === 'completed' || s.status === 'cancelled') {
    return done('completed', `the schedule is ${s.status}, and nothing recorded this occurrence`);
  }
  return done(
    'unrecorded',
    'no record of it: the schedule was paused (or errored, or re-timed) at that time, which records nothing; pause times are not stored',
  );
}

function explainRecord(f: WhyFacts, r: RunRecord, facts: WhyFact[], done: Done): WhyReport {
  const s = f.schedule;
  const d = (cause: WhyCause | null, summary: string) => done(cause, summary, r);
  let lateClaim: string | undefined;
  if (r.claimedAt !== undefined) {
    const lag = r.claimedAt - r.fireAt;
    const who = r.replica ?? 'a replica';
    if (r.reclaimed) {
      facts.push({
        link: 'claim',
        at: r.claimedAt,
        text: `claimed, but that replica died (its lease lapsed): ${who} took it over at ${iso(r.claimedAt)}, ${secs(Math.max(0, lag))} after its fire time`,
        ok: false,
      });
    } else if (
      lag > (r.outcome === 'missed' ? Math.min(f.lateThresholdMs, s.misfireGraceMs) : f.lateThresholdMs)
    ) {
      lateClaim = `no scheduler replica alive at ${iso(r.fireAt)}: the first claim came at ${iso(r.claimedAt)} (${who}), ${secs(lag)} later`;
      facts.push({ link: 'claim', at: r.claimedAt, text: lateClaim, ok: false });
    } else {
      facts.push({
        link: 'claim',
        at: r.claimedAt,
        text: `claimed by ${who} at ${iso(r.claimedAt)}`,
        ok: true,
      });
    }
  }
  if (r.outcome === 'missed') return explainMissed(f, r, facts, d, lateClaim);
  if (r.coalesced !== undefined && r.coalesced > 1) {
    facts.push({
      link: 'claim',
      text: `one catch-up run for ${r.coalesced} late occurrences (misfire: once)`,
      ok: true,
    });
  }
  if (r.standsFor) {
    const { from, to, count, cause } = r.standsFor;
    facts.push({
      link: 'claim',
      text: `this run stands for ${count} occurrence(s) coalesced from ${iso(from)} to ${iso(to)} (${COALESCE_CAUSE[cause]})`,
      ok: true,
    });
  }
  if (r.jobId !== undefined || r.enqueuedAt !== undefined) {
    const when = r.enqueuedAt !== undefined ? ` at ${iso(r.enqueuedAt)}` : '';
    facts.push({
      link: 'enqueue',
      ...(r.enqueuedAt !== undefined && { at: r.enqueuedAt }),
      text: `enqueued as job ${r.jobId ?? '?'} on queue ${r.queue ?? s.queue}${when}${r.kind === 'catch-up' ? ' (catch-up)' : ''}`,
      ok: true,
    });
  }
  if (r.startedAt !== undefined) {
    const who = r.worker ?? (r.consumer === 'foreign' ? 'a consumer other than bullbeat' : 'a worker');
    facts.push({
      link: 'worker',
      at: r.startedAt,
      text: `picked by ${who} at ${iso(r.startedAt)} (attempt ${r.attempts ?? 1})`,
      ok: true,
    });
  }
  const took =
    r.startedAt !== undefined && r.finishedAt !== undefined ? ` in ${secs(r.finishedAt - r.startedAt)}` : '';
  switch (r.outcome) {
    case 'succeeded':
      facts.push({
        link: 'outcome',
        ...(r.finishedAt !== undefined && { at: r.finishedAt }),
        text: `succeeded${took}`,
        ok: true,
      });
      return d(null, `it ran: succeeded${took}${lateClaim ? ` (late: ${lateClaim})` : ''}`);
    case 'running':
      if (f.run && (f.run.lease === 'lapsed' || f.run.jobState !== 'active'))
        return explainLost(r, f.run, facts, d);
      return d('running', `running now on ${r.worker ?? 'a worker'}`);
    case 'retrying':
      facts.push({
        link: 'outcome',
        text: `attempt ${r.attempts ?? 1} failed: ${r.error ?? '?'}; BullMQ retries it`,
        ok: false,
      });
      return d('retrying', `attempt ${r.attempts ?? 1} failed (${r.error ?? '?'}); BullMQ retries it`);
    case 'failed': {
      facts.push({
        link: 'outcome',
        ...(r.finishedAt !== undefined && { at: r.finishedAt }),
        text: `failed${took}: ${r.error ?? '?'}`,
        ok: false,
      });
      if (r.error?.startsWith('no handler for job')) {
        return d(
          'no-handler',
          `no worker serving queue ${r.queue ?? s.queue} has a handler for job name "${s.name}": ${r.error}`,
        );
      }
      return d('failed', `it ran and failed after ${r.attempts ?? 1} attempt(s): ${r.error ?? '?'}`);
    }
    case 'skipped':
      return explainSkipped(f, r, facts, d);
    case 'cancelled':
      facts.push({
        link: 'outcome',
        ...(r.finishedAt !== undefined && { at: r.finishedAt }),
        text: `cancelled${took} by a newer occurrence (overlap: cancelOther)`,
        ok: false,
      });
      return d('overlap', `it ran and was cancelled${took} by a newer occurrence (overlap: cancelOther)`);
    default:
      return explainWaiting(f, r, facts, d);
  }
}

function explainMissed(
  f: WhyFacts,
  r: RunRecord,
  facts: WhyFact[],
  d: (cause: WhyCause | null, summary: string) => WhyReport,
  lateClaim: string | undefined,
): WhyReport {
  const s = f.schedule;
  const root = lateClaim ? `; ${lateClaim}` : '';
  if (r.reason === 'paused') {
    facts.push({
      link: 'enqueue',
      text: 'claimed, then the schedule was paused or removed before it was enqueued',
      ok: false,
    });
    return d(
      'stopped',
      'not enqueued: the schedule was paused (or removed) after its claim, before its fire time',
    );
  }
  if (r.reason === 'catch-up-window') {
    facts.push({
      link: 'enqueue',
      text: 'older than catchUpWindowMs when claimed: recorded as missed',
      ok: false,
    });
    return d('catch-up-window', `missed: older than the catch-up window when a replica saw it${root}`);
  }
  if (r.reason === 'max-catch-up') {
    facts.push({
      link: 'enqueue',
      text: 'beyond maxCatchUp late occurrences (misfire: all): recorded as missed',
      ok: false,
    });
    return d('max-catch-up', `missed: beyond maxCatchUp under misfire 'all'${root}`);
  }
  // misfire: coalesced into a catch-up run (misfire 'once'), or dropped ('skip' / too many)
  // the series' catch-up run: the first coalescing record after it (records are newest first)
  const into = f.records.findLast(
    (o) => o.kind === 'catch-up' && o.coalesced !== undefined && o.fireAt > r.fireAt,
  );
  if (into && s.misfire === 'once') {
    facts.push({
      link: 'enqueue',
      text: `coalesced: one catch-up run at ${iso(into.fireAt)} stood for ${into.coalesced} late occurrences (misfire: once)`,
      ok: false,
    });
    return d(
      'coalesced',
      `coalesced into the catch-up run of ${iso(into.fireAt)} (${into.outcome ?? 'pending'})${root}`,
    );
  }
  facts.push({
    link: 'enqueue',
    text: `late by more than misfireGraceMs (${secs(s.misfireGraceMs)}) when claimed: recorded as missed (misfire: ${s.misfire})`,
    ok: false,
  });
  return d('misfire', `missed by the misfire policy (misfire: ${s.misfire})${root}`);
}

function explainSkipped(
  f: WhyFacts,
  r: RunRecord,
  facts: WhyFact[],
  d: (cause: WhyCause | null, summary: string) => WhyReport,
): WhyReport {
  const s = f.schedule;
  if (r.reason === 'coalesced') return explainCoalesced(f, r, facts, d);
  if (r.reason === 'exclusion-group') {
    facts.push({
      link: 'worker',
      text: `exclusion group "${r.group ?? s.exclusionGroup ?? '?'}" stayed busy`,
      ok: false,
    });
    return d(
      'exclusion-group',
      `skipped: its exclusion group "${r.group ?? s.exclusionGroup ?? '?'}" stayed busy past exclusionWaitMs`,
    );
  }
  const t = r.finishedAt ?? r.enqueuedAt ?? r.fireAt;
  const other = f.records.find(
    (o) =>
      o !== r &&
      o.startedAt !== undefined &&
      o.startedAt <= t &&
      (o.finishedAt === undefined || o.finishedAt >= t) &&
      o.outcome !== 'skipped',
  );
  const rules = `maxInstances ${s.maxInstances}${s.coalesce ? ', coalesce' : ''}`;
  const with_ = other
    ? `run ${iso(other.fireAt)} (job ${other.jobId ?? '?'} on ${other.worker ?? 'a worker'}, started ${iso(other.startedAt!)}${other.finishedAt !== undefined ? `, finished ${iso(other.finishedAt)}` : ', still running'})`
    : 'a run no longer in the kept history';
  facts.push({ link: 'worker', at: t, text: `skipped for overlap with ${with_} (${rules})`, ok: false });
  return d('overlap', `skipped for overlap with ${with_} (${rules})`);
}

function explainWaiting(
  f: WhyFacts,
  r: RunRecord,
  facts: WhyFact[],
  d: (cause: WhyCause | null, summary: string) => WhyReport,
): WhyReport {
  const queue = r.queue ?? f.schedule.queue;
  const name = f.schedule.name;
  const job = f.job;
  if (job === null) {
    facts.push({ link: 'worker', text: `job ${r.jobId ?? '?'} is no longer in BullMQ`, ok: false });
    return d(
      'job-gone',
      `enqueued, but job ${r.jobId ?? '?'} is no longer in BullMQ (removed, or its queue was obliterated), and no worker recorded a run`,
    );
  }
  if (job?.state === 'failed') {
    const reason = job.failedReason ?? '?';
    facts.push({ link: 'outcome', text: `BullMQ failed it: ${reason}`, ok: false });
    if (reason.startsWith('no handler for job')) {
      return d(
        'no-handler',
        `no worker serving queue ${queue} has a handler for job name "${name}": ${reason}`,
      );
    }
    return d('failed', `BullMQ failed it: ${reason}`);
  }
  if (job?.state === 'active') return d('running', `being run now (BullMQ: active) on queue ${queue}`);
  if (job?.state === 'completed')
    return d(null, `it ran: BullMQ completed it (its outcome is not recorded yet)`);
  if (f.queueWorkers === 0) {
    facts.push({ link: 'worker', text: `no worker is connected to queue ${queue}`, ok: false });
    return d(
      'no-worker',
      `no worker serving queue ${queue} with a handler for job name "${name}": the job waits (BullMQ: ${job?.state ?? 'waiting'}) until one starts`,
    );
  }
  const workers = f.queueWorkers !== undefined ? `; ${f.queueWorkers} worker(s) connected to the queue` : '';
  facts.push({
    link: 'worker',
    text: `waiting on queue ${queue} (BullMQ: ${job?.state ?? '?'})${workers}`,
    ok: false,
  });
  return d(
    'waiting',
    `waiting on queue ${queue} (BullMQ: ${job?.state ?? '?'})${workers}: none has taken it yet (all busy, or rate-limited)`,
  );
}

/** What each backpressure cause means, in a sentence a reader of `why` understands. */
const COALESCE_CAUSE: Record<CoalesceCause, string> = {
  'consumer-behind':
    'the consumer was behind: the job of the previous occurrence was still waiting in the queue, a run that stands for this one',
  'scheduler-behind':
    'no scheduler replica claimed it before a later occurrence was due too (the deployment was down or overloaded): the latest one ran for them all',
};

function explainCoalesced(
  f: WhyFacts,
  r: RunRecord,
  facts: WhyFact[],
  d: (cause: WhyCause | null, summary: string) => WhyReport,
): WhyReport {
  const cause = r.coalescedBy ?? 'consumer-behind';
  const standIn = r.standIn !== undefined ? f.records.find((o) => o.fireAt === r.standIn) : undefined;
  const at = r.standIn !== undefined ? iso(r.standIn) : '?';
  const state = standIn ? ` (${standIn.outcome ?? 'pending'})` : '';
  facts.push({ link: 'enqueue', text: `coalesced: ${COALESCE_CAUSE[cause]}`, ok: false });
  return d('coalesced', `coalesced by backpressure (${cause}): the run of ${at}${state} stands for it`);
}

/** A `running` record whose run is not going on: its worker died (or stalled) mid-run. */
function explainLost(
  r: RunRecord,
  run: NonNullable<WhyFacts['run']>,
  facts: WhyFact[],
  d: (cause: WhyCause | null, summary: string) => WhyReport,
): WhyReport {
  const lost = `attempt ${r.attempts ?? 1} was lost with its worker (${r.worker ?? 'a worker'})`;
  const next =
    run.jobState === null
      ? 'its job is gone from BullMQ'
      : run.jobState === 'active'
        ? 'its slot lease lapsed; BullMQ gives the job back once its lock expires (the stalled check)'
        : run.jobState === 'failed'
          ? 'BullMQ failed its job (stalled too often); a bullbeat worker records the failure when it takes it'
          : `its job is ${run.jobState} in BullMQ, to run again`;
  facts.push({ link: 'outcome', text: `${lost}: ${next}`, ok: false });
  return d('lost', `not running: ${lost}; ${next}`);
}
