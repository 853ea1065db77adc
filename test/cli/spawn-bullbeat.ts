import { type ChildProcess, spawn } from 'node:child_process';
import { childEnv, cliPath, root } from './run-bullbeat.js';

/** A long-running `bullbeat` child process whose output can be awaited. */
export interface RunningBullbeat {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** Resolves when the output matches `pattern`; rejects if the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (for cleanup). */
  kill(): void;
}

export function spawnBullbeat(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; command?: string[] } = {},
): RunningBullbeat {
  const argv = options.command ?? [cliPath, ...args];
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd ?? root,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      for (const l of listeners) l();
      resolve({ code, signal });
    });
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            cleanup();
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`process exited before ${pattern}; output:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output:\n${out}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
