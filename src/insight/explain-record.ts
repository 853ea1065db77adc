import type { RunRecord } from '../store/index.js';
import { explainMissed, explainSkipped } from './explain-not-run.js';
import type { WhyCause, WhyFact, WhyFacts, WhyReport } from './why-types.js';
import { COALESCE_CAUSE, type Done, iso, type Said, secs } from './why-words.js';

/** An occurrence with a record: its claim, its job, its worker and its outcome, link by link. */
export function explainRecord(f: WhyFacts, r: RunRecord, facts: WhyFact[], done: Done): WhyReport {
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
      // its outcome held behind a burst (docs/records.md), or lost with a worker that ended first
      if (f.run?.jobState === 'completed')
        return d(null, `it ran: BullMQ completed it (its outcome is not recorded yet)`);
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

function explainWaiting(f: WhyFacts, r: RunRecord, facts: WhyFact[], d: Said): WhyReport {
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

/** A `running` record whose run is not going on: its worker died (or stalled) mid-run. */
function explainLost(r: RunRecord, run: NonNullable<WhyFacts['run']>, facts: WhyFact[], d: Said): WhyReport {
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
