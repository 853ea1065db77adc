export { type Agenda, type AgendaEntry, type AgendaOptions, agenda, parseWindow } from './agenda.js';
export { type WhyOptions, whyDidntItRun } from './why.js';
export type { WhyCause, WhyFact, WhyReport } from './why-types.js';
