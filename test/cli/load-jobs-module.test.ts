// A jobs module loaded by the CLI in process, more than once: each load runs its top level again and
// makes a manager of its own, reading the env it was loaded under (as a process of its own would).
import { describe, expect, it } from 'vitest';
import { loadJobsModule } from '../../src/cli/load-jobs-module.js';
import { internalsOf, withManagerEnv } from '../../src/scheduler/index.js';
import { assertBuilt, root } from './run-bullbeat.js';

describe('loadJobsModule in one process', () => {
  it('each load makes its own manager, with the env it was loaded under', async () => {
    assertBuilt(); // the fixture imports the built package
    expect(process.env.BULLBEAT_PREFIX).toBeUndefined();
    const load = (prefix: string) =>
      withManagerEnv({ BULLBEAT_PREFIX: prefix }, () => loadJobsModule('test/cli/fixtures/jobs.mjs', root));
    const a = await load('load-a');
    const b = await load('load-b');
    try {
      expect(b.path).toBe(a.path);
      expect(b.scheduler).not.toBe(a.scheduler);
      expect([internalsOf(a.scheduler).prefix, internalsOf(b.scheduler).prefix]).toEqual([
        'load-a',
        'load-b',
      ]);
      // the schedules each load defined are its own manager's
      expect(internalsOf(a.scheduler).handlerNames().sort()).toEqual(['report', 'tick']);
      expect(internalsOf(b.scheduler).handlerNames().sort()).toEqual(['report', 'tick']);
    } finally {
      await Promise.all([a.scheduler.close(), b.scheduler.close()]);
    }
  });
});
