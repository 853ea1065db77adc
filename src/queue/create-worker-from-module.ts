import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JobsModuleError } from '../errors/jobs-module-error.js';
import { createWorker, type WorkerHandle } from './create-worker.js';
import type { CreateWorkerOptions } from './worker-options.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** A worker handle made from a jobs module, with the scheduler the module exported. */
export interface ModuleWorkerHandle extends WorkerHandle {
  readonly scheduler: WorkerScheduler;
}

/**
 * Import a jobs module (`.js`, or `.ts` through tsx when this process cannot load TypeScript itself)
 * and run `createWorker` for the scheduler it exports: its default export (a `SchedulerManager`, or a
 * function returning one, sync or async), else a named `scheduler` export. `path` is resolved from the
 * current directory.
 */
export async function createWorkerFromModule(
  path: string,
  options: CreateWorkerOptions = {},
): Promise<ModuleWorkerHandle> {
  const scheduler = await loadJobsModule(path);
  const handle = await createWorker(scheduler, options);
  return Object.assign(handle, { scheduler });
}

/** The scheduler exported by a jobs module. */
export async function loadJobsModule(path: string): Promise<WorkerScheduler> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(process.cwd(), path)).href;
  let exports: Record<string, unknown>;
  try {
    exports = await importModule(url);
  } catch (cause) {
    throw new JobsModuleError(path, `cannot import it: ${(cause as Error).message}`, { cause });
  }
  let candidate = exports.default ?? exports.scheduler;
  if (typeof candidate === 'function' && !isScheduler(candidate)) {
    candidate = await (candidate as () => unknown)();
  }
  if (!isScheduler(candidate)) {
    throw new JobsModuleError(
      path,
      'its default export (or `scheduler` export) is not a SchedulerManager, nor a function returning one',
    );
  }
  return candidate;
}

async function importModule(url: string): Promise<Record<string, unknown>> {
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_UNKNOWN_FILE_EXTENSION' || !/\.[cm]?tsx?$/.test(url)) throw error;
    // A TypeScript jobs module in a process without a TypeScript loader: load it through tsx.
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}

function isScheduler(value: unknown): value is WorkerScheduler {
  const v = value as Partial<WorkerScheduler> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.handlerFor === 'function' &&
    typeof v.handlerNames === 'function' &&
    typeof v.connectionOptions === 'function' &&
    typeof v.prefix === 'string'
  );
}
