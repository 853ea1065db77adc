import { existsSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JobsModuleError } from '../errors/index.js';
import type { SchedulerManager } from '../scheduler/index.js';

const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts']);

/** A loaded jobs module: the file it came from and the scheduler its default export gave. */
export interface LoadedJobsModule {
  /** The absolute path of the file. */
  path: string;
  scheduler: SchedulerManager;
}

/** The file a specifier names: as written, then with each known extension, then as a folder's index. */
export function resolveJobsModule(specifier: string, cwd: string): string {
  const base = resolve(cwd, specifier);
  const candidates = [
    base,
    ...EXTENSIONS.map((ext) => base + ext),
    ...EXTENSIONS.map((ext) => join(base, `index${ext}`)),
  ];
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new JobsModuleError(base, `no such file (also tried ${EXTENSIONS.join(', ')} and index files)`);
}

let tsxRegistered: Promise<void> | undefined;

async function registerTsx(path: string): Promise<void> {
  tsxRegistered ??= (async () => {
    try {
      const api = await import('tsx/esm/api');
      api.register();
    } catch (cause) {
      tsxRegistered = undefined;
      throw new JobsModuleError(
        path,
        'a TypeScript jobs module needs tsx (npm install --save-dev tsx), or build it to .js and pass that',
        { cause },
      );
    }
  })();
  await tsxRegistered;
}

/** `file:///a/b.js:3:7` or `/a/b.js:3:7` as a path relative to the working directory, with its position. */
function shortLocation(location: string): string {
  const m = /^(.*?)((?::\d+){1,2})$/.exec(location);
  const file = m?.[1] ?? location;
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  return relative(process.cwd(), path) + (m?.[2] ?? '');
}

/**
 * Where in the user's code an error was thrown: the location V8 puts above a syntax error's message,
 * else the first stack frame that is a file outside node_modules and bullbeat's CLI.
 */
function userFrame(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  const head = /^((?:file:\/\/)?\/\S+:\d+)\s*$/m.exec(stack.split('\n')[0] ?? '');
  if (head?.[1]) return shortLocation(head[1]);
  for (const line of stack.split('\n').slice(1)) {
    const m = /^\s*at (?:.*? \()?((?:file:\/\/)?\/[^()\s]+:\d+:\d+)\)?$/.exec(line);
    const where = m?.[1];
    if (!where || where.includes('/node_modules/') || where.includes('/src/cli/')) continue;
    return shortLocation(where);
  }
  return undefined;
}

function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const head = (error.message.split('\n')[0] ?? '').trim();
    const where = userFrame(error);
    return `${error.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${head}${where ? ` (at ${where})` : ''}`;
  }
  return String(error);
}

const isClass = (fn: unknown) =>
  typeof fn === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(fn));

/** Duck-typed, so that a scheduler built from the sources (through tsx) is accepted by the built CLI. */
export function isSchedulerManager(value: unknown): value is SchedulerManager {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return ['start', 'stop', 'list', 'schedule', 'pause', 'resume'].every((m) => typeof v[m] === 'function');
}

/** How many times each jobs module was loaded in this process (see `loadJobsModule`). */
const loads = new Map<string, number>();

/**
 * The URL a jobs module is imported from: its file's, and from its second load in this process on
 * (`runCli` called again in one process) with a query of its own, so that its top level runs again
 * and makes a manager of its own, as in a process of its own (the modules it imports are shared).
 */
function moduleUrl(path: string): string {
  const n = loads.get(path) ?? 0;
  loads.set(path, n + 1);
  const href = pathToFileURL(path).href;
  return n === 0 ? href : `${href}?load=${n}`;
}

/**
 * Imports a jobs module (`.js`, or `.ts` through tsx) and returns the `SchedulerManager` that its
 * default export is or returns. Every failure is a `JobsModuleError` naming the file and the cause.
 */
export async function loadJobsModule(specifier: string, cwd = process.cwd()): Promise<LoadedJobsModule> {
  const path = resolveJobsModule(specifier, cwd);
  if (TYPESCRIPT.has(extname(path))) await registerTsx(path);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(moduleUrl(path))) as Record<string, unknown>;
  } catch (cause) {
    throw new JobsModuleError(path, `failed to load: ${describeCause(cause)}`, { cause });
  }
  let exported = mod.default;
  // A CommonJS module's `module.exports = { default }` arrives one level deeper.
  if (exported && typeof exported === 'object' && !isSchedulerManager(exported) && 'default' in exported) {
    exported = (exported as { default: unknown }).default;
  }
  if (exported === undefined) {
    throw new JobsModuleError(
      path,
      'has no default export (export default a SchedulerManager, or a function returning one)',
    );
  }
  if (isClass(exported)) {
    throw new JobsModuleError(
      path,
      'its default export is a class; export an instance (new SchedulerManager())',
    );
  }
  if (typeof exported === 'function') {
    try {
      exported = await (exported as () => unknown)();
    } catch (cause) {
      throw new JobsModuleError(path, `its default export threw: ${describeCause(cause)}`, { cause });
    }
  }
  if (!isSchedulerManager(exported)) {
    const what = exported === null ? 'null' : typeof exported;
    throw new JobsModuleError(
      path,
      `its default export is not a SchedulerManager (got ${what}); export default a SchedulerManager, or a function returning one`,
    );
  }
  return { path, scheduler: exported };
}
