import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, childEnv, root } from '../cli/run-bullbeat.js';
import { startRedisServer } from '../setup/redis-server.js';
import { copyInstalledExample, installExample, packBullbeat, run, runInstancesOnce } from './nest-example.js';

// examples/nest as a Nest user has it, from the packed tarball: once as `nest new` makes it (CommonJS,
// TypeScript `module: nodenext`), once as an ESM application (`"type": "module"`), the same sources
// and the same installed dependencies.
// Each runs as two processes at once on one Redis prefix: every occurrence runs once.

describe('examples/nest from the packed tarball, CommonJS and ESM', () => {
  let dir: string;
  let redis: { url: string; stop(): Promise<void> };

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'bullbeat-nest-apps-'));
    const tarball = packBullbeat(dir);
    installExample(join(dir, 'cjs'), tarball);
    copyInstalledExample(join(dir, 'cjs'), join(dir, 'esm'), { type: 'module' });
    redis = await startRedisServer();
  }, 900_000);

  afterAll(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('the CommonJS build require()s bullbeat/nest; the ESM build imports it', () => {
    expect(readFileSync(join(dir, 'cjs/dist/app.module.js'), 'utf8')).toContain('require("bullbeat/nest")');
    const esm = readFileSync(join(dir, 'esm/dist/app.module.js'), 'utf8');
    expect(esm).toContain("from 'bullbeat/nest'");
    expect(esm).not.toContain('require(');
  });

  it('from CommonJS, the root and bullbeat/dashboard load with require() and type-check', () => {
    const cjs = join(dir, 'cjs');
    // A CommonJS file of the application (module nodenext, as `nest new` sets it) using all three entries.
    writeFileSync(
      join(cjs, 'src/entries.check.ts'),
      [
        "import { SchedulerManager, CronTrigger } from 'bullbeat';",
        "import { createDashboard, type Dashboard } from 'bullbeat/dashboard';",
        "import { BullbeatModule } from 'bullbeat/nest';",
        "const scheduler = new SchedulerManager({ prefix: 'check', role: 'client' });",
        "const dashboard: Dashboard = createDashboard({ scheduler, token: 't' });",
        'export const used = [dashboard, new CronTrigger("* * * * *"), BullbeatModule];',
        '',
      ].join('\n'),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(cjs, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
      {
        cwd: cjs,
        encoding: 'utf8',
      },
    );
    rmSync(join(cjs, 'src/entries.check.ts'));
    expect(tsc.stdout + tsc.stderr).toBe('');
    const node = spawnSync(
      process.execPath,
      [
        '-e',
        [
          "const root = require('bullbeat');",
          "const dashboard = require('bullbeat/dashboard');",
          "const nest = require('bullbeat/nest');",
          'console.log(typeof root.SchedulerManager, typeof dashboard.createDashboard, typeof nest.BullbeatModule);',
          // One module instance: what bullbeat/nest checks with instanceof is the class require() gave.
          "const m = new root.SchedulerManager({ prefix: 'x', role: 'client' });",
          'console.log(nest.BullbeatModule && m instanceof require("bullbeat").SchedulerManager);',
        ].join('\n'),
      ],
      { cwd: cjs, encoding: 'utf8', timeout: 120_000 },
    );
    expect(node.stderr).toBe('');
    expect(node.stdout).toBe('function function function\ntrue\n');
  }, 180_000);

  it('CommonJS: two instances at once on one prefix, each occurrence once', async () => {
    const { runs } = await runInstancesOnce(join(dir, 'cjs'), redis.url, 'cjs');
    expect(runs.length).toBeGreaterThanOrEqual(6);
  }, 300_000);

  it('ESM: two instances at once on one prefix, each occurrence once', async () => {
    const { runs } = await runInstancesOnce(join(dir, 'esm'), redis.url, 'esm');
    expect(runs.length).toBeGreaterThanOrEqual(6);
  }, 300_000);

  it("deploy/app/Dockerfile's runtime stage: npm ci --omit=dev --omit=optional, then its ENTRYPOINT runs the CLI, which stops on SIGTERM", async () => {
    const dockerfile = readFileSync(join(root, 'deploy/app/Dockerfile'), 'utf8');
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual([
      'node:24-slim',
      'node:24-slim',
    ]);
    const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));
    const omit = (/^RUN npm ci ([^&\n]*)/m.exec(runtime)?.[1] ?? '')
      .split(/\s+/)
      .filter((a) => a.startsWith('--omit='));
    expect(omit).toEqual(['--omit=dev', '--omit=optional']); // optional: TypeScript, a peer of Bull Board's valibot
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(runtime)?.[1] ?? '[]') as string[];
    expect(entrypoint).toEqual(['node_modules/.bin/bullbeat']);
    // The runtime stage's install, on the CommonJS application: what is left runs bullbeat's CLI directly.
    const app = join(dir, 'cjs');
    run('npm', ['prune', ...omit, '--no-audit', '--no-fund', '--loglevel=error'], app);
    expect(readFileSync(join(app, 'node_modules/bullbeat/package.json'), 'utf8')).toContain(
      '"name": "bullbeat"',
    );
    const env = childEnv({ REDIS_URL: redis.url, BULLBEAT_PREFIX: 'image', BULLBEAT_DASHBOARD_TOKEN: 't' });
    const child = spawn(join(app, entrypoint[0] as string), ['dashboard', '--port', '0'], { cwd: app, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const deadline = Date.now() + 120_000;
    while (!/dashboard: listening/.test(out) && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(out).toMatch(/dashboard: listening/);
    // What docker stop sends: the CLI gets it (no npx in between) and exits 0 after a clean shutdown.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 300_000);
});
