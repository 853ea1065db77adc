import { type ChildProcess, spawn } from 'node:child_process';

/** A scheduler replica fixture running as a process of its own (the chaos and failover tests). */
export interface ReplicaProcess {
  child: ChildProcess;
  /** What it printed on stdout so far. */
  out: string;
  /** The signal that ended it, else its exit code. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** It printed `ready`: its scheduler has started. */
  ready(): boolean;
}

/**
 * Runs `node fixture` with `env` over this process's environment, its stderr on the test's. `children`,
 * when given, collects the child for an `afterEach` that kills what a failed test left running.
 */
export function spawnReplicaProcess(
  fixture: string,
  env: Record<string, string>,
  children?: ChildProcess[],
): ReplicaProcess {
  const child = spawn(process.execPath, [fixture], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children?.push(child);
  const r: ReplicaProcess = {
    child,
    out: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code))),
    ready: () => r.out.includes('ready'),
  };
  child.stdout?.on('data', (d) => (r.out += String(d)));
  return r;
}
