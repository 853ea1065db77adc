import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ScheduleOptionsError } from '../../src/errors/index.js';
import { createWorker, type WorkerHandle } from '../../src/queue/create-worker.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../../src/triggers/interval-trigger.js';
import { waitUntil } from '../wait-until.js';
import { silent, testEnv } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'bullbeat-handle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function compileAndImport<T>(fixture: string, experimentalDecorators: boolean): Promise<T> {
  const source = readFileSync(new URL(`./fixtures/${fixture}.ts`, import.meta.url), 'utf8');
  const out = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, experimentalDecorators },
  });
  const file = join(dir, `${fixture}-${experimentalDecorators}-${Date.now()}.mjs`);
  writeFileSync(file, out.outputText);
  return import(pathToFileURL(file).href);
}

const client = () => new SchedulerManager({ prefix: 'never-started', logger: silent, role: 'client' });

describe('handle(name, fn): a worker handler without a schedule', () => {
  it('is found by the worker lookup, defines no schedule, and runs in process', async () => {
    const m = client();
    m.handle('send-report', async (ctx: { name: string }) => `report by ${ctx.name}`, { queue: 'reports' });
    expect(internalsOf(m).handlerNames()).toEqual(['send-report']);
    const entry = internalsOf(m).handlerFor('send-report')!;
    expect(entry.job.queue).toBe('reports');
    expect(await entry.job.run()).toBe('report by send-report');
    expect(internalsOf(m).handlerFor('other')).toBeUndefined();
    // its queue defaults to the manager's, named after the deployment's prefix
    m.handle('plain', () => 1);
    expect(internalsOf(m).handlerFor('plain')!.job.queue).toBe('never-started');
  });

  it('refuses a name twice, an empty name, a bad queue and an unknown option, naming the field', () => {
    const m = client();
    m.handle('once', () => 1);
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err as ScheduleOptionsError;
      }
      throw new Error('no error');
    };
    const twice = fail(() => m.handle('once', () => 2));
    expect(twice).toBeInstanceOf(ScheduleOptionsError);
    expect(twice.field).toBe('name');
    expect(fail(() => m.handle('', () => 2)).field).toBe('name');
    expect(fail(() => m.handle('q', () => 2, { queue: 'a:b' })).field).toBe('queue');
    expect(fail(() => m.handle('q', () => 2, { queu: 'x' } as never)).field).toBe('queu');
    expect(internalsOf(m).handlerNames()).toEqual(['once']);
    expect(internalsOf(m).handlerFor('once')!.fn()).toBe(1);
  });

  it('as a function wrapper returns the function, named after it', () => {
    const m = client();
    const fn = m.handle()(async function archive() {
      return 'archived';
    });
    expect(fn.name).toBe('archive');
    expect(internalsOf(m).handlerNames()).toEqual(['archive']);
  });

  it.each([false, true])('as a method decorator (experimentalDecorators: %s)', async (legacy) => {
    const m = client();
    const { defineHandlers } = await compileAndImport<typeof import('./fixtures/handled-jobs.js')>(
      'handled-jobs',
      legacy,
    );
    const Handlers = defineHandlers(m);
    if (!legacy) new Handlers(); // TC39: instance methods register when an instance is made
    expect(internalsOf(m).handlerNames().sort()).toEqual(['purge', 'send-report']);
    expect(internalsOf(m).handlerFor('send-report')!.job.queue).toBe('reports');
    expect(await internalsOf(m).handlerFor('purge')!.job.run()).toBe('purged');
    expect(await internalsOf(m).handlerFor('send-report')!.job.run()).toBe(
      legacy ? 'undefined report' : 'instance report',
    );
  });
});

describe('a runtime schedule runs through a handle() handler', () => {
  let env: ReturnType<typeof testEnv>;
  let worker: WorkerHandle | undefined;
  afterEach(async () => {
    await worker?.close({ graceMs: 100 });
    worker = undefined;
    await env.cleanup();
  });

  it('made by a client (as the API and CLI make them): the worker serves its queue and records its runs', async () => {
    env = testEnv('handle-runtime');
    // the jobs module: a handler, no schedule
    const jobs = env.manager();
    const ran: string[] = [];
    jobs.handle('ping', async (who: string) => {
      ran.push(who);
    });
    // a runtime schedule made elsewhere (the API, the CLI, the dashboard): a { queue, name } target
    const api = env.manager({ role: 'client' });
    await api.schedule({ name: 'ping', queue: `${env.queue}-rt` }, new IntervalTrigger(0.2), {
      id: 'rt',
      args: ['api'],
    }).saved;
    worker = await createWorker(jobs, { logger: silent });
    await worker.ready();
    expect(worker.queues).toContain(`${env.queue}-rt`);
    await jobs.start();
    await waitUntil(() => ran.length >= 2, 20_000);
    expect(ran[0]).toBe('api');
    await waitUntil(async () => (await jobs.history('rt')).some((r) => r.outcome === 'succeeded'), 10_000);
    // the module defined no schedule: nothing of its own fires
    expect((await jobs.list()).map((j) => j.id)).toEqual(['rt']);
  }, 30_000);
});
