import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, closedPort, runBullbeat } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

// The issue asks for "a clear error within a few seconds, no hang": the only wall-clock bound in these
// tests is a generous 15 s per command (a hang is killed at 20 s and fails the exit-code assertion).
const BOUND_MS = 15_000;

let port: number;
let silent: Server;
let silentPort: number;
const sockets = new Set<Socket>();

beforeAll(async () => {
  assertBuilt();
  port = await closedPort();
  // A server that accepts connections and never answers: the probe must time out, not hang.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentPort = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

const COMMANDS: [string, string[]][] = [
  ['schedule:list', ['schedule:list']],
  ['schedule:pause', ['schedule:pause', 'x']],
  ['schedule:resume', ['schedule:resume', 'x']],
  ['schedule:trigger', ['schedule:trigger', 'x']],
  ['schedule:remove', ['schedule:remove', 'x']],
  ['schedule:add', ['schedule:add', '--name', 'x', '--every', '60']],
  ['dashboard', ['dashboard', '--open', '--port', '0']],
  ['scheduler', ['scheduler', 'test/cli/fixtures/jobs.mjs']],
  ['worker', ['worker', 'test/cli/fixtures/jobs.mjs']],
  ['dev', ['dev', 'test/cli/fixtures/jobs.mjs', '--open', '--port', '0']],
];

describe('Redis unreachable', () => {
  // In this process (`runCli`), the services too: every manager a run makes, the jobs module's among
  // them, reads the CLI's env (REDIS_URL here), made anew for each run.
  it.each(COMMANDS)('%s: exit 3 with one clear line, no stack trace', async (_name, args) => {
    const run = await runBullbeat(args, { env: { REDIS_URL: `redis://127.0.0.1:${port}` }, spawn: false });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `bullbeat: Redis is unreachable at redis://127.0.0.1:${port}: connection refused\n`,
    );
  });

  // Smoke tests of the executable: a one-shot command and a service, each in a process of its own.
  it.each(COMMANDS.filter(([name]) => name === 'schedule:list' || name === 'scheduler'))(
    '%s spawned: exit 3 with the same line, within a few seconds',
    async (_name, args) => {
      const started = Date.now();
      const run = await runBullbeat(args, { env: { REDIS_URL: `redis://127.0.0.1:${port}` }, spawn: true });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe(
        `bullbeat: Redis is unreachable at redis://127.0.0.1:${port}: connection refused\n`,
      );
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
    },
  );

  it('workers/worker.ts (the worker entry point) exits 3 the same way, instead of retrying forever', async () => {
    const worker = spawnBullbeat([], {
      command: ['--import', 'tsx', 'workers/worker.ts', 'test/cli/fixtures/jobs.mjs'],
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
    });
    const timer = setTimeout(() => worker.kill(), 20_000);
    const exit = await worker.exited;
    clearTimeout(timer);
    expect(exit.code, worker.output()).toBe(3);
    expect(worker.output()).toBe(
      `bullbeat: Redis is unreachable at redis://127.0.0.1:${port}: connection refused\n`,
    );
  }, 30_000);

  it('a password in the URL is masked in the message', async () => {
    const run = await runBullbeat([
      'schedule:list',
      '--redis-url',
      `redis://user:s3cret@127.0.0.1:${port}/2`,
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`redis://user:***@127.0.0.1:${port}/2`);
    expect(run.stderr).not.toContain('s3cret');
  });

  it('a Redis that accepts but never answers: exit 3 after the timeout', async () => {
    const run = await runBullbeat(['schedule:list'], {
      env: { REDIS_URL: `redis://127.0.0.1:${silentPort}`, BULLBEAT_REDIS_TIMEOUT_MS: '500' },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      `bullbeat: Redis is unreachable at redis://127.0.0.1:${silentPort}: no answer within 500 ms\n`,
    );
  });
});
