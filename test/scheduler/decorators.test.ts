import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScheduledJob } from '../../src/scheduler/contract/scheduled-job.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { silent } from './helpers.js';

// Vitest's transform (oxc) leaves TC39 decorators as they are and Node 20 cannot parse them, so the
// decorated class is compiled by tsc (as `npm run build` would) and imported from a temp file.
const dir = mkdtempSync(join(tmpdir(), 'bullbeat-decorators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compileAndImport<T>(fixture: string, experimentalDecorators = false): Promise<T> {
  const source = readFileSync(new URL(`./fixtures/${fixture}.ts`, import.meta.url), 'utf8');
  const out = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, experimentalDecorators },
  });
  const file = join(dir, `${fixture}-${Date.now()}.mjs`);
  writeFileSync(file, out.outputText);
  return import(pathToFileURL(file).href);
}

const loadDecorated = () => compileAndImport<typeof import('./fixtures/decorated-jobs.js')>('decorated-jobs');

/** Type-checks a fixture as a strict project would (the decorator's types are what TS1241 is about). */
function typeErrors(fixture: string, experimentalDecorators: boolean): string[] {
  const file = fileURLToPath(new URL(`./fixtures/${fixture}.ts`, import.meta.url));
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    experimentalDecorators,
  });
  // the fixture's own diagnostics (the sources it imports are checked by `npm run lint`): checking every
  // file of the program took most of this file's time
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('every()/cron() as TC39 method decorators', () => {
  it('registers static and instance methods; the methods stay callable', async () => {
    const scheduler = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });
    const { defineJobs } = await loadDecorated();
    const Jobs = defineJobs(scheduler);
    expect(await Jobs.cleanup()).toBe('cleaned');
    expect(internalsOf(scheduler).handlerNames()).toEqual(['cleanup']);
    const jobs = new Jobs();
    expect(await jobs.dailyReport()).toBe('instance report');
    expect(internalsOf(scheduler).handlerNames().sort()).toEqual(['cleanup', 'dailyReport']);
    const report = internalsOf(scheduler).handlerFor('dailyReport')!;
    expect(report.job.queue).toBe('reports');
    expect((report.job as ScheduledJob).toJSON().spec).toEqual({
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'America/New_York',
    });
    // The registered function is bound to the instance that was constructed.
    expect(await report.job.run()).toBe('instance report');
    expect(await internalsOf(scheduler).handlerFor('cleanup')!.job.run()).toBe('cleaned');
  });

  it('as a function wrapper returns the ScheduledJob (Sillo style)', () => {
    const scheduler = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });
    const job = scheduler.every(300, { jitter: 30 })(async function pollUpstream() {});
    expect(job.name).toBe('pollUpstream');
    expect(job.id).toBe('pollUpstream');
    expect(job.toJSON().spec).toEqual({ type: 'interval', seconds: 300, jitter: 30 });
  });
});

describe('every()/cron() as legacy method decorators (experimentalDecorators, as in NestJS apps)', () => {
  it('type-checks under experimentalDecorators, and TC39 decorators still do without it', {
    timeout: 180_000,
  }, () => {
    expect(typeErrors('legacy-decorated-jobs', true)).toEqual([]);
    expect(typeErrors('decorated-jobs', false)).toEqual([]);
  });

  it('registers static and prototype methods when the class is defined; the methods stay callable', async () => {
    const scheduler = new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });
    const { defineLegacyJobs } = await compileAndImport<typeof import('./fixtures/legacy-decorated-jobs.js')>(
      'legacy-decorated-jobs',
      true,
    );
    const Jobs = defineLegacyJobs(scheduler);
    expect(internalsOf(scheduler).handlerNames().sort()).toEqual(['cleanup', 'dailyReport']);
    expect(await Jobs.cleanup()).toBe('LegacyJobs cleaned');
    expect(await new Jobs().dailyReport()).toBe('legacy report');
    const report = internalsOf(scheduler).handlerFor('dailyReport')!;
    expect(report.job.queue).toBe('reports');
    expect((report.job as ScheduledJob).toJSON().spec).toMatchObject({
      type: 'cron',
      expression: '0 9 * * 1-5',
    });
    // A static method runs with the class as `this`, an instance method with the class's prototype.
    expect(await internalsOf(scheduler).handlerFor('cleanup')!.job.run()).toBe('LegacyJobs cleaned');
    expect(await report.job.run()).toBe('legacy report');
  });
});
