/**
 * What the package's own sub-entries (`bullbeat/nest`) use beyond the public API: the plumbing of a
 * `SchedulerManager`. Not an entry point of the package (package.json does not export it); what it
 * names is free to change.
 */
export { internalsOf, type ManagerInternals } from './scheduler/index.js';
