import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { assertBuilt, runBullbeat } from '../cli/run-bullbeat.js';

const JOBS = 'test/ops/fixtures/ops-jobs.mjs';
const env = { BULLBEAT_PREFIX: 'ops-config-never-started', OPS_QUEUE: 'ops-config-never-started' };

describe('operations settings', () => {
  it('a bad metrics port or heartbeat is a usage error naming the flag or variable, before anything starts', async () => {
    assertBuilt();
    const flag = await runBullbeat(['scheduler', JOBS, '--metrics-port', '70000'], { env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--metrics-port: expected a port number from 0 to 65535 (got "70000")');
    const variable = await runBullbeat(['worker', JOBS], { env: { ...env, BULLBEAT_HEARTBEAT_MS: 'soon' } });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain('BULLBEAT_HEARTBEAT_MS');
  }, 30_000);

  it('a metrics port in use is a usage error naming it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const run = await runBullbeat(
        ['scheduler', JOBS, '--metrics-port', String(port), '--metrics-host', '127.0.0.1'],
        { env },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--metrics-port: port ${port} is already in use`);
    } finally {
      server.close();
    }
  }, 30_000);
});
