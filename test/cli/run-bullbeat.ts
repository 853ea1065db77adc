import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run-cli.js';
import { REDIS_URL } from '../redis-url.js';

/** The repository root and the built CLI, run as a user would: `node dist/src/cli/main.js`. */
export const root = fileURLToPath(new URL('../../', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm run build (npm test does it)`);
}

/**
 * The tree at `from` at `to`: hard links where both are on one file system (a copy of an installed
 * node_modules to this box's disk costs seconds of I/O; links cost none), else a copy (tmpfs:
 * vitest.config.ts sets TMPDIR there when the box has one). npm replaces a package's files (unlinks
 * them, then writes new ones), so either side can be pruned or reinstalled without touching the other.
 */
export function linkOrCopy(from: string, to: string): void {
  if (spawnSync('cp', ['-al', from, to]).status === 0) return;
  rmSync(to, { recursive: true, force: true }); // another file system: no links across
  const cp = spawnSync('cp', ['-a', from, to], { encoding: 'utf8' });
  if (cp.status !== 0) throw new Error(`copying ${from} failed: ${cp.stderr}`);
}

/**
 * The repository's node_modules in `dir` (`linkOrCopy`). The one file npm rewrites in place, its record
 * of the install (`.package-lock.json`), is always copied, and so is newer than the lock file.
 */
export function linkNodeModules(dir: string): void {
  const from = join(root, 'node_modules');
  const to = join(dir, 'node_modules');
  linkOrCopy(from, to);
  rmSync(join(to, '.package-lock.json'));
  copyFileSync(join(from, '.package-lock.json'), join(to, '.package-lock.json'));
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Env for a child CLI: the parent's, minus settings that would leak in, plus the test Redis and `env`. */
export function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(base)) {
    if (/^(REDIS_URL|BULLBEAT_|LOG_|PORT$|HOST$)/.test(key)) delete base[key];
  }
  // The test Redis (test/redis-url.ts) unless `env` names another (or `REDIS_URL: undefined` for none).
  const merged: NodeJS.ProcessEnv = { ...base, LOG_FORMAT: 'json', REDIS_URL };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Spawned: killed after it; in process: rejects after it (default 60 s: a node start-up on a busy box). */
  timeoutMs?: number;
  /**
   * Run the built CLI in its own process, as a user does (`node dist/src/cli/main.js`), for what only
   * a process shows (its exit, signals, its own streams). Default: in this process, through `runCli`,
   * except for the services (`dev`, `scheduler`, `worker`, `dashboard`; their `--help` aside), spawned.
   */
  spawn?: boolean;
}

/**
 * Runs `bullbeat ...args` to completion: in this process through `runCli(argv, io)` with the child's
 * env (see `childEnv`), or spawned with `{ spawn: true }`.
 */
export function runBullbeat(args: readonly string[], options: RunOptions = {}): Promise<CliRun> {
  const spawned = options.spawn ?? (SERVICES.has(args[0] ?? '') && !args.includes('--help'));
  return spawned ? spawnToEnd(args, options) : runInProcess(args, options);
}

/** Commands that run until a signal (they own the process: its signals and its exit): spawned, but for `--help`. */
const SERVICES = new Set(['dev', 'scheduler', 'worker', 'dashboard']);

async function runInProcess(args: readonly string[], options: RunOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const run = runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: childEnv(options.env),
    cwd: options.cwd ?? root,
    stdoutIsTTY: false,
    now: () => Date.now(),
  });
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`bullbeat ${args.join(' ')}: still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([run, timedOut]);
    return { code, signal: null, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

function spawnToEnd(args: readonly string[], options: RunOptions): Promise<CliRun> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? root,
      env: childEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A closed TCP port on loopback (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
