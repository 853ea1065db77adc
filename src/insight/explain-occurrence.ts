import type { RunRecord } from '../store/index.js';
import { leftToBullmq } from '../store/index.js';
import { explainBullmq } from './explain-bullmq.js';
import { explainRecord } from './explain-record.js';
import { explainUnrecorded } from './explain-unrecorded.js';
import type { WhyCause, WhyFact, WhyFacts, WhyReport } from './why-types.js';
import { iso, secs } from './why-words.js';

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
  if (leftToBullmq(f.handover ?? null, s.createdAt, occ!.planned)) {
    return explainBullmq(f, occ!.planned, facts, done);
  }
  return explainUnrecorded(f, occ!.planned, occ!.planned + occ!.jitterMs, facts, done);
}

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
