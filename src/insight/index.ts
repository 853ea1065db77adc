export {
  type Agenda,
  type AgendaEntry,
  type AgendaOptions,
  type AgendaSchedule,
  agenda,
  agendaOf,
  parseWindow,
} from './agenda.js';
export { DURATION_HELP, parseDurationMs } from './duration.js';
export {
  type ExpectedOccurrence,
  expectedAtOrBefore,
  type OccurrenceBounds,
} from './expected-occurrence.js';
export { explainOccurrence } from './explain-occurrence.js';
export { type WhyOptions, whyDidntItRun } from './why.js';
export type { WhyCause, WhyFact, WhyFacts, WhyReport } from './why-types.js';
