import type { CoalesceCause, RunRecord } from '../store/index.js';
import type { WhyCause, WhyReport } from './why-types.js';

// The words of `why`'s answers, shared by its explanations.

export const iso = (t: number) => new Date(t).toISOString();
export const secs = (ms: number) => (ms < 10_000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** Ends an explanation: its cause (null: it ran), its summary, the record it read. */
export type Done = (cause: WhyCause | null, summary: string, record?: RunRecord | null) => WhyReport;

/** Ends an explanation of one record. */
export type Said = (cause: WhyCause | null, summary: string) => WhyReport;

/** What each backpressure cause means, in a sentence a reader of `why` understands. */
export const COALESCE_CAUSE: Record<CoalesceCause, string> = {
  'consumer-behind':
    'the consumer was behind: the job of the previous occurrence was still waiting in the queue, a run that stands for this one',
  'scheduler-behind':
    'no scheduler replica claimed it before a later occurrence was due too (the deployment was down or overloaded): the latest one ran for them all',
};
