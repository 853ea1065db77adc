import { describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { runBullbeat } from './run-bullbeat.js';

const COMMANDS = [
  'dev',
  'scheduler',
  'worker',
  'dashboard',
  'schedule:list',
  'schedule:pause',
  'schedule:resume',
  'schedule:trigger',
  'schedule:remove',
  'schedule:next',
  'schedule:add',
  'schedule:update',
  'schedule:show',
];

// A usage error ends a service command before it owns the process: every run here is in this
// process (runCli), the services' included.
describe('bullbeat --help and usage errors', () => {
  it('lists every command, the environment and the exit codes, exit 0', async () => {
    const run = await runBullbeat(['--help']);
    expect(run.code).toBe(0);
    for (const name of COMMANDS) expect(run.stdout).toContain(name);
    expect(run.stdout).toContain('schedule:run');
    expect(run.stdout).toContain('REDIS_URL');
    expect(run.stdout).toMatch(/3\s+Redis unreachable/);
  });

  it.each(COMMANDS)('%s --help prints its usage, exit 0', async (name) => {
    const run = await runBullbeat([name, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: bullbeat ${name}`);
    expect(run.stderr).toBe('');
  });

  it('schedule:run is an alias of scheduler', async () => {
    const run = await runBullbeat(['schedule:run', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: bullbeat scheduler|schedule:run');
  });

  it('no arguments: the help on stdout, exit 2', async () => {
    const run = await runBullbeat([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Usage: bullbeat');
  });

  it('--version prints the package version, exit 0', async () => {
    const run = await runBullbeat(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('an unknown command: a message naming it, exit 2', async () => {
    const run = await runBullbeat(['schedule:frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'schedule:frobnicate'");
  });

  it('an unknown option: a message naming it, exit 2', async () => {
    const run = await runBullbeat(['schedule:list', '--colour']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--colour'");
  });

  it('a missing argument: a message naming it, exit 2', async () => {
    const run = await runBullbeat(['worker'], { spawn: false });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'jobs-module'");
  });

  it('a bad REDIS_URL: a message naming the variable, exit 2, before any connection', async () => {
    const run = await runBullbeat(['schedule:list'], { env: { REDIS_URL: 'http://example.com' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: REDIS_URL: expected a URL like redis:\/\//);
  });

  it('a flag wins over the environment and is named in the message', async () => {
    const run = await runBullbeat(['schedule:list', '--redis-url', 'nope'], {
      env: { REDIS_URL },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: --redis-url: expected a URL/);
  });

  it('a bad LOG_LEVEL: exit 2 naming it and the allowed values', async () => {
    const run = await runBullbeat(['schedule:list'], { env: { LOG_LEVEL: 'loud' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent');
  });

  it('a bad --concurrency: exit 2 naming the flag', async () => {
    const run = await runBullbeat(['worker', 'examples/jobs', '--concurrency', 'lots'], { spawn: false });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--concurrency: expected a whole number from 1 to 10000');
  });

  it('a bad PORT: exit 2 naming the variable', async () => {
    const run = await runBullbeat(['dashboard'], { env: { PORT: '70000' }, spawn: false });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PORT: expected a port number from 0 to 65535');
  });
});
