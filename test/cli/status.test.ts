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

  it('warns when live processes run different bullbeat versions, in text and JSON, without failing the probe', async () => {
    const old = await joinFleet({ prefix, connection: REDIS, role: 'scheduler', version: '0.9.0' });
    const next = await joinFleet({ prefix, connection: REDIS, role: 'scheduler', version: '0.10.0' });
    const worker = await joinFleet({
      prefix,
      connection: REDIS,
      role: 'worker',
      version: '0.10.0',
      queues: [queue],
    });
    try {
      const run = await runBullbeat(['status'], { env });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.at(-2)).toBe(
        'WARNING: live processes run different bullbeat versions: 0.9.0 (1 process), 0.10.0 (2 processes)',
      );
      expect(lines.at(-1)).toBe('OK');
      const json = await runBullbeat(['status', '--json'], { env });
      const body = JSON.parse(json.stdout) as {
        ok: boolean;
        warnings: string[];
        versions: object;
        mixedVersions: boolean;
      };
      expect(body.ok).toBe(true);
      expect(body.mixedVersions).toBe(true);
      expect(body.versions).toEqual({ '0.9.0': 1, '0.10.0': 2 });
      expect(body.warnings).toEqual([
        'live processes run different bullbeat versions: 0.9.0 (1 process), 0.10.0 (2 processes)',
      ]);
      // once the old one is gone, one version: no warning
      await old.leave();
      const after = await runBullbeat(['status', '--json'], { env });
      const settled = JSON.parse(after.stdout) as { warnings: string[]; mixedVersions: boolean };
      expect(settled).toMatchObject({ warnings: [], mixedVersions: false });
    } finally {
      await worker.leave();
      await next.leave();
      await old.leave();
    }
  });
});
