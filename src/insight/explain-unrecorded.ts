import type { WhyFact, WhyFacts, WhyReport } from './why-types.js';
import { COALESCE_CAUSE, type Done, iso, secs } from './why-words.js';

/**
 * An occurrence with no record: not due yet, claimed, its schedule errored or paused, no replica
 * alive, older than the kept history, coalesced into a stand-in's run, or unrecorded.
 */
export function explainUnrecorded(
  f: WhyFacts,
  from: number,
  to: number,
  facts: WhyFact[],
  done: Done,
): WhyReport {
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
