import type { RunRecord } from '../store/index.js';
import type { WhyFact, WhyFacts, WhyReport } from './why-types.js';
import { COALESCE_CAUSE, iso, type Said, secs } from './why-words.js';

// Records of occurrences that did not run: missed (misfire, catch-up bounds, stopped) or skipped
// (overlap, exclusion group, coalesced by backpressure); and the refusal of a later add of one that ran.

export function explainMissed(
  f: WhyFacts,
  r: RunRecord,
  facts: WhyFact[],
  d: Said,
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

export function explainSkipped(f: WhyFacts, r: RunRecord, facts: WhyFact[], d: Said): WhyReport {
  const s = f.schedule;
  if (r.reason === 'coalesced') return explainCoalesced(f, r, facts, d);
  if (r.reason === 'ran-already') {
    // the occurrence ran; this record is the refusal of a later add of its job id (start-runs-1)
    facts.push({
      link: 'worker',
      ...(r.finishedAt !== undefined && { at: r.finishedAt }),
      text: `a later add of its job (${r.jobId ?? '?'}) refused at its start: an earlier add ran it (its record is no longer in the kept history)`,
      ok: true,
    });
    return d(
      null,
      'it ran, under an earlier add of its job; a later add, by an enqueuer that had lost it (a stalled replica or backfill), was refused at its start',
    );
  }
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
  if (r.reason === 'group') {
    facts.push({ link: 'worker', text: `group "${r.group ?? '?'}" ran its max at once`, ok: false });
    return d('group', `skipped: its group "${r.group ?? '?'}" already ran its max at once (group.max)`);
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
  // A run's start is recorded behind (the worker's recordLagMs): the holder may still read `enqueued`.
  const unrecorded = other
    ? undefined
    : f.records
        .filter((o) => o !== r && o.fireAt < r.fireAt && o.outcome === 'enqueued')
        .sort((a, b) => b.fireAt - a.fireAt)[0];
  const rules = `overlap ${s.overlap}, maxInstances ${s.maxInstances}`;
  const with_ = other
    ? `run ${iso(other.fireAt)} (job ${other.jobId ?? '?'} on ${other.worker ?? 'a worker'}, started ${iso(other.startedAt!)}${other.finishedAt !== undefined ? `, finished ${iso(other.finishedAt)}` : ', still running'})`
    : unrecorded
      ? `run ${iso(unrecorded.fireAt)} (job ${unrecorded.jobId ?? '?'} on a worker, its start not recorded yet: a run's record follows its start by up to the worker's recordLagMs)`
      : 'a run no longer in the kept history';
  facts.push({ link: 'worker', at: t, text: `skipped for overlap with ${with_} (${rules})`, ok: false });
  return d('overlap', `skipped for overlap with ${with_} (${rules})`);
}

function explainCoalesced(f: WhyFacts, r: RunRecord, facts: WhyFact[], d: Said): WhyReport {
  const cause = r.coalescedBy ?? 'consumer-behind';
  const standIn = r.standIn !== undefined ? f.records.find((o) => o.fireAt === r.standIn) : undefined;
  const at = r.standIn !== undefined ? iso(r.standIn) : '?';
  const state = standIn ? ` (${standIn.outcome ?? 'pending'})` : '';
  facts.push({ link: 'enqueue', text: `coalesced: ${COALESCE_CAUSE[cause]}`, ok: false });
  return d('coalesced', `coalesced by backpressure (${cause}): the run of ${at}${state} stands for it`);
}
