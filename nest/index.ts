export { BULLBEAT_MODULE_OPTIONS, BullbeatModule } from './bullbeat-module.js';
export type {
  BullbeatModuleAsyncOptions,
  BullbeatModuleOptions,
  BullbeatRole,
} from './bullbeat-module-options.js';
export { nestLogger } from './nest-logger.js';
export {
  BULLBEAT_SCHEDULES,
  type BullbeatMethodDecorator,
  Cron,
  Every,
  type MethodSchedule,
  Schedule,
} from './schedule-decorators.js';
