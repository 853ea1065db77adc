import { ConfigError, SchedulerManager } from '../src/index.js';
import { internalsOf } from '../src/internal.js';
import type {
  BullbeatModuleOptions,
  BullbeatRole,
  ResolvedBullbeatModuleOptions,
} from './bullbeat-module-options.js';
import { nestLogger } from './nest-logger.js';

const ROLES: readonly BullbeatRole[] = ['scheduler', 'worker'];

/** Applies the defaults once and builds the manager (no I/O: it connects when the application boots). */
export function resolveModuleOptions(options: BullbeatModuleOptions = {}): ResolvedBullbeatModuleOptions {
  const { roles: given, worker, manager: givenManager, ...managerOptions } = options;
  const roles = new Set<BullbeatRole>(given ?? ROLES);
  for (const role of roles) {
    if (!ROLES.includes(role)) {
      throw new ConfigError(
        'BullbeatModule roles',
        `expected "scheduler" and/or "worker", got ${JSON.stringify(role)}`,
      );
    }
  }
  const role = roles.has('scheduler') ? 'scheduler' : 'client';
  if (givenManager !== undefined) {
    if (!(givenManager instanceof SchedulerManager)) {
      throw new ConfigError('BullbeatModule manager', 'expected a SchedulerManager');
    }
    if (internalsOf(givenManager).options.role !== role) {
      throw new ConfigError(
        'BullbeatModule manager',
        `its role is "${internalsOf(givenManager).options.role}", but roles [${[...roles].join(', ')}] need "${role}"`,
      );
    }
  }
  return {
    roles,
    worker: { ...worker },
    manager:
      givenManager ??
      new SchedulerManager({ ...managerOptions, logger: managerOptions.logger ?? nestLogger(), role }),
  };
}
