import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { SchedulerManager } from '../../src/scheduler/scheduler-manager.js';
import { silent } from './helpers.js';

// Vitest's transform (oxc) leaves TC39 decorators as they are and Node 20 cannot parse them, so the
// decorated class is compiled by tsc (as `npm run build` would) and imported from a temp file.
const dir = mkdtempSync(join(tmpdir(), 'bullbeat-decorators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadDecorated(): Promise<typeof import('./fixtures/decorated-jobs.js')> {
  const source = readFileSync(new URL('./fixtures/decorated-jobs.ts', import.meta.url), 'utf8');
  const out = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
  });
  const file = join(dir, `decorated-${Date.now()}.mjs`);
  writeFileSync(file, out.outputText);
  return import(pathToFileURL(file).href);
}

describe('every()/cron() as TC39 method decorators', () => {
  it('registers static and instance methods; the methods stay callable', async () => {
    const scheduler = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });
    const { defineJobs } = await loadDecorated();
    const Jobs = defineJobs(scheduler);
    expect(await Jobs.cleanup()).toBe('cleaned');
    expect(scheduler.handlerNames()).toEqual(['cleanup']);
    const jobs = new Jobs();
    expect(await jobs.dailyReport()).toBe('instance report');
    expect(scheduler.handlerNames().sort()).toEqual(['cleanup', 'dailyReport']);
    const report = scheduler.handlerFor('dailyReport')!;
    expect(report.job.queue).toBe('reports');
    expect(report.job.toJSON().spec).toEqual({
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'America/New_York',
    });
    // The registered function is bound to the instance that was constructed.
    expect(await report.job.run()).toBe('instance report');
    expect(await scheduler.handlerFor('cleanup')!.job.run()).toBe('cleaned');
  });

  it('as a function wrapper returns the ScheduledJob (Sillo style)', () => {
    const scheduler = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });
    const job = scheduler.every(300, { jitter: 30 })(async function pollUpstream() {});
    expect(job.name).toBe('pollUpstream');
    expect(job.id).toBe('pollUpstream');
    expect(job.toJSON().spec).toEqual({ type: 'interval', seconds: 300, jitter: 30 });
  });
});
