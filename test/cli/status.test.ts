// `bullbeat status` in text: the fleet table one member a line (not one line with escaped breaks), and
// a stored name with a control character still shown escaped, on its own line.
import { describe, expect, it } from 'vitest';
import { joinFleet } from '../../src/ops/index.js';
import { REDIS } from '../redis-url.js';
import { cliTestBed } from './cli-test-bed.js';
import { runBullbeat } from './run-bullbeat.js';

const { prefix, queue, env } = cliTestBed('status');

describe('bullbeat status', () => {
  it('prints the fleet as a table, a line per member, under its header', async () => {
    const scheduler = await joinFleet({ prefix, connection: REDIS, role: 'scheduler', version: '9.9.9' });
    const worker = await joinFleet({
      prefix,
      connection: REDIS,
      role: 'worker',
      version: '9.9.9',
      queues: [queue],
      handlers: ['tick\nforged'],
      handles: { [queue]: ['tick\nforged'] },
    });
    try {
      const run = await runBullbeat(['status'], { env });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const lines = run.stdout.split('\n');
      expect(lines[0]).toBe(`prefix "${prefix}": 1 scheduler replica(s) alive, 1 worker(s) alive`);
      expect(lines[1]).toMatch(/^role {7}state {2}host +pid +version +last beat +queues \[handlers\]$/);
      const members = lines.slice(2, 4).sort();
      expect(members[0]).toMatch(/^scheduler {2}alive {2}\S+ +\d+ +9\.9\.9 /);
      expect(members[1]).toMatch(/^worker {5}alive {2}\S+ +\d+ +9\.9\.9 /);
      // a stored job name with a line break stays on its member's line, escaped
      expect(members[1]).toContain(`${queue} [tick\\nforged]`);
      expect(lines[4]).toBe('schedules: 0 late, 0 failing, 0 errored');
      expect(lines[5]).toBe('OK');
    } finally {
      await worker.leave();
      await scheduler.leave();
    }
  });
});
