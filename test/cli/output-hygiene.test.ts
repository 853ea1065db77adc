import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, childEnv, cliPath, closedPort, root, runBullbeat } from './run-bullbeat.js';

beforeAll(assertBuilt);

/** Runs the CLI with its stdout a pipe whose reader has already gone (as `bullbeat --help | head -1`). */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: root,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('CLI output hygiene', () => {
  it('bullbeat --help into a pipe closed early (| head -1): exit 0, no unhandled EPIPE', async () => {
    for (const args of [['--help'], ['schedule:add', '--help'], ['--version']]) {
      const run = await runWithClosedStdout(args);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.code, args.join(' ')).toBe(0);
    }
  });

  it.each([
    [['schedule:add', '--every', '5'], "bullbeat: required option '--name <name>' not specified"],
    [['schedule:list', '--colour'], "bullbeat: unknown option '--colour'"],
    [['schedule:frobnicate'], "bullbeat: unknown command 'schedule:frobnicate'"],
    [['worker'], "bullbeat: missing required argument 'jobs-module'"],
    [['schedule:next', '* * * * *', '-n', 'x'], "bullbeat: option '-n, --count <n>' argument 'x' is invalid"],
  ])('a flag-parsing error starts with "bullbeat:" like every other error: %j', async (args, line) => {
    const run = await runBullbeat(args);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toContain(line);
    expect(run.stderr).not.toMatch(/^error:/m);
  });

  it.each([['scheduler'], ['worker']])(
    '%s with a module that saves a target at import: only the one-line "Redis unreachable" error',
    async (command) => {
      const port = await closedPort();
      const run = await runBullbeat([command, 'test/cli/fixtures/jobs-target.mjs'], {
        env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      });
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `bullbeat: Redis is unreachable at redis://127.0.0.1:${port}: connection refused\n`,
      );
    },
  );
});
