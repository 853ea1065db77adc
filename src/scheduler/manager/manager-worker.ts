import {
  type CreateWorkerOptions,
  createWorker as createWorkerRuntime,
  type WorkerHandle,
} from '../../queue/index.js';
import type { SchedulerManager } from './scheduler-manager.js';

/**
 * Run the manager's handlers on BullMQ workers: one worker per queue it serves (by default every queue
 * where this process has a handler for a job name). Each occurrence runs once under its schedule's
 * overlap rule, its run recorded (`running` → `succeeded` | `retrying` | `failed`, or `skipped`).
 * A job name with no handler here fails with an `UnknownHandlerError` naming it. Installs no signal
 * handlers; resolves once the workers exist (`ready()` waits for their connections). See
 * docs/schedules.md (roles, overlap) and the options of `CreateWorkerOptions`.
 */
export function createWorker(
  manager: SchedulerManager,
  options?: CreateWorkerOptions,
): Promise<WorkerHandle> {
  return createWorkerRuntime(manager, options);
}
