import { type ChildProcess, spawn } from 'node:child_process';
import { cliPath, root } from '../cli/run-bullbeat.js';
import { childFixture } from '../setup/child-fixtures.js';

/**
 * Every worker process not yet exited: killed when this test process exits, so that a test that
 * failed or timed out before its clean-up (a start that timed out beside others that did not, say)
 * leaves no worker behind to load the box for the files after it.
 */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
const defaultJobs = childFixture('test/queue/fixtures/worker-jobs.ts');

/**
 * A worker process running the test jobs module through the one worker entry point: `bullbeat
 * worker` from the build, as docker-compose.yml runs it (the jobs module compiled against the build).
 */
export class WorkerProcess {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output = '';

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d) => {
      this.output += d;
    });
    child.stderr?.on('data', (d) => {
      this.output += d;
    });
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** Start one for the jobs module `jobs` and wait until its BullMQ workers are ready. */
  static async start(
    prefix: string,
    queue: string,
    flags: string[] = [],
    jobs = defaultJobs,
  ): Promise<WorkerProcess> {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!/^(REDIS_URL|BULLBEAT_|LOG_)/.test(key)) env[key] = value;
    }
    const child = spawn(process.execPath, [cliPath, 'worker', jobs, '--queues', queue, ...flags], {
      cwd: root,
      env: { ...env, LOG_FORMAT: 'json', LOG_LEVEL: 'info', BB_TEST_PREFIX: prefix, BB_TEST_QUEUE: queue },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    child.on('exit', () => live.delete(child));
    const worker = new WorkerProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`worker not ready in 30 s:\n${worker.output}`));
      }, 30_000);
      const onData = () => {
        if (worker.output.includes('"msg":"worker ready"')) {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker exited (${code}) before ready:\n${worker.output}`));
      });
    });
    return worker;
  }

  /** SIGKILL it unless it has exited, and wait. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
