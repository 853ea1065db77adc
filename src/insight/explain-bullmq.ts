import type { WhyFact, WhyFacts, WhyReport } from './why-types.js';
import { type Done, iso } from './why-words.js';

/**
 * An occurrence of an imported schedule that is BullMQ's side of the hand-over (`import:bullmq`): at or
 * before the pending job BullMQ kept, or while the schedule waits for its hand-over. BullMQ's job
 * scheduler ran it (or runs it), not bullbeat: what its job's state says.
 */
export function explainBullmq(f: WhyFacts, planned: number, facts: WhyFact[], done: Done): WhyReport {
  const h = f.handover!;
  const jobId = `repeat:${h.scheduler}:${planned}`;
  const side =
    h.until === null
      ? `BullMQ's job scheduler "${h.scheduler}" runs this schedule's occurrences until import:bullmq --remove-originals hands it over`
      : `BullMQ's job scheduler "${h.scheduler}" ran this schedule's occurrences up to ${iso(h.until)} (its pending job at the hand-over); bullbeat runs those after`;
  facts.push({ link: 'enqueue', at: planned, text: `left to BullMQ: ${side}`, ok: true });
  const job = f.bullmqJob;
  if (job === undefined) return done('bullmq', `left to BullMQ: ${side} (job ${jobId})`);
  if (job === null) {
    return done(
      'bullmq',
      `left to BullMQ: ${side}; its job ${jobId} is no longer in the queue (removed on completion, or never made: BullMQ makes each job when the one before it starts)`,
    );
  }
  const ran = job.state === 'completed';
  facts.push({ link: 'outcome', at: planned, text: `BullMQ job ${jobId}: ${job.state}`, ok: ran });
  return done(
    ran ? null : 'bullmq',
    `${ran ? 'ran on BullMQ' : `left to BullMQ (its job is ${job.state})`}: ${side} (job ${jobId})`,
  );
}
