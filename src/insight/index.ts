export { type Agenda, type AgendaEntry, type AgendaOptions, agenda, parseWindow } from './agenda.js';
export { nextOccurrence } from './calendar-insight.js';
export { type CalendarOverview, calendarOverviews } from './calendar-overview.js';
export { type CalendarPlan, calendarPlan } from './calendar-plan.js';
export {
  type CodeDeploy,
  type CodeDeployChange,
  type CodeDeploysOptions,
  codeDeploys,
} from './code-deploys.js';
export { DURATION_HELP, parseDurationMs } from './duration.js';
export type { ExpectedOccurrence } from './expected-occurrence.js';
export { type GroupOccupancy, groups } from './groups.js';
export { type WhyOptions, whyDidntItRun } from './why.js';
export type { WhyCause, WhyFact, WhyReport } from './why-types.js';
