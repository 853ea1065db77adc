// The door of src/store/deployment/: what the store's other rooms use of it.

export { AlertStore, type AlertsReport, incidentSlot, type TakenDelivery } from './alert-store.js';
export { CalendarBook } from './calendar-book.js';
export { CalendarStore } from './calendar-store.js';
export {
  checkDataFormat,
  checkDeployment,
  DATA_FORMAT,
  type DataFormatRules,
  FORMAT_UPGRADES,
  type FormatUpgrade,
} from './data-format.js';
export { leaveFleet } from './fleet.js';
export { decodeHandles, type FleetMemberInfo, FleetMembers, type FleetRole } from './fleet-members.js';
export { PauseNotes } from './pause-notes.js';
export { ScheduleStore } from './schedule-store.js';
