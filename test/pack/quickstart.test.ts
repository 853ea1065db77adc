import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, root } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';
import { startRedisServer } from '../setup/redis-server.js';

// What a new user does: `npm pack` (the package as published), install the tarball into a fresh
// project (strict, NodeNext, skipLibCheck off), write the README's tsconfig.json and jobs.ts
// verbatim, build them with tsc, and run the scheduler and the worker as separate processes until a
// job has run. The files come from README.md itself, so that the README cannot drift from this test.
// Dependencies come from the npm cache (`--prefer-offline`); a private redis-server keeps the
// README's fixed prefix ('app') and queue names away from everyone else's.

const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's fenced block whose first line is `// <name>`. */
function readmeFile(name: string): string {
  const blocks = [...readme.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  const found = blocks.filter((b) => b.startsWith(`// ${name}\n`));
  if (found.length !== 1)
    throw new Error(`README.md: expected one code block starting "// ${name}", found ${found.length}`);
  return found[0] as string;
}

const devVersion = (name: string): string => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return `${name}@${pkg.devDependencies[name]}`;
};

function run(command: string, args: string[], cwd: string, timeoutMs = 90_000) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`,
    );
  }
  return r.stdout;
}

describe("the README's own-project quickstart, from the packed tarball", () => {
  let dir: string;
  let redis: { url: string; stop(): Promise<void> };
  const procs: RunningBullbeat[] = [];

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'bullbeat-own-project-'));
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', dir], root)
      .trim()
      .split('\n')
      .pop();
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'my-app', version: '1.0.0', private: true }, null, 2)}\n`,
    );
    // The README's install lines (typescript, @types/node and tsx at this repository's versions, from the cache).
    run('npm', ['pkg', 'set', 'type=module', 'scripts.build=tsc'], dir);
    // Two installs, as the README's two lines: the dev tools as dev dependencies (the Docker recipe's
    // runtime stage leaves them out, which the last test checks).
    const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
    run('npm', [...install, join(dir, tarball as string)], dir);
    run(
      'npm',
      [...install, '--save-dev', devVersion('typescript'), devVersion('tsx'), devVersion('@types/node')],
      dir,
    );
    redis = await startRedisServer();
  }, 150_000);

  afterAll(async () => {
    for (const proc of procs) proc.kill();
    await Promise.all(procs.map((p) => p.exited));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the README shows the steps this test takes', () => {
    for (const line of [
      'npm install bullbeat',
      'npm install --save-dev typescript @types/node tsx',
      'npm pkg set type=module scripts.build=tsc',
      'npm run build ',
      'npx bullbeat scheduler dist/jobs.js',
      'npx bullbeat worker dist/jobs.js',
      'npx bullbeat schedule:trigger dailyReport',
    ]) {
      expect(readme).toContain(line);
    }
  });

  it("type-checks (strict, NodeNext, skipLibCheck off), bullbeat/dashboard's types included, and builds dist/jobs.js", () => {
    const tsconfig = readmeFile('tsconfig.json');
    expect(tsconfig).toMatch(/"skipLibCheck": false/);
    expect(tsconfig).toMatch(/"strict": true/);
    writeFileSync(join(dir, 'tsconfig.json'), tsconfig);
    writeFileSync(join(dir, 'jobs.ts'), readmeFile('jobs.ts'));
    // Not in the README: the dashboard's public types, checked the same way.
    writeFileSync(
      join(dir, 'dashboard.ts'),
      [
        "import { createServer } from 'node:http';",
        "import { createDashboard, type Dashboard, startDashboard } from 'bullbeat/dashboard';",
        "import scheduler from './jobs.js';",
        'const dashboard: Dashboard = createDashboard({ scheduler, token: "t" });',
        'createServer(dashboard);',
        'export const started = () => startDashboard({ scheduler, port: 0, open: true });',
        '',
      ].join('\n'),
    );
    // The check's program holds the build's (jobs.ts and every declaration file it reaches): its
    // build info hands the build its findings, so the libraries are type-checked once, not twice.
    const buildInfo = ['--incremental', '--tsBuildInfoFile', 'check.tsbuildinfo'];
    writeFileSync(
      join(dir, 'tsconfig.check.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { noEmit: true },
        include: ['jobs.ts', 'dashboard.ts'],
      }),
    );
    const tsc = join(dir, 'node_modules/typescript/bin/tsc');
    const check = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.check.json', ...buildInfo], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    // `npm run build` (`tsc`): the README's tsconfig.json as it stands
    const build = spawnSync(process.execPath, [tsc, ...buildInfo], { cwd: dir, encoding: 'utf8' });
    expect(build.stdout + build.stderr).toBe('');
    expect(existsSync(join(dir, 'dist/jobs.js'))).toBe(true);
  }, 120_000);

  it('runs: a scheduler and a worker as separate processes, and a triggered run reaches the handler', async () => {
    expect(existsSync(join(dir, 'dist/jobs.js'))).toBe(true);
    const bullbeat = join(dir, 'node_modules/.bin/bullbeat');
    const env = { REDIS_URL: redis.url };
    const start = (args: string[]) => {
      const proc = spawnBullbeat([], { cwd: dir, env, command: [bullbeat, ...args] });
      procs.push(proc);
      return proc;
    };
    const scheduler = start(['scheduler', 'dist/jobs.js']);
    const worker = start(['worker', 'dist/jobs.js']);
    await scheduler.waitFor(/scheduler replica running/, 30_000);
    await worker.waitFor(/worker running/, 30_000);
    const trigger = start(['schedule:trigger', 'dailyReport']);
    expect((await trigger.exited).code).toBe(0);
    await worker.waitFor(/building the report/, 30_000);
    expect(worker.child.pid).not.toBe(scheduler.child.pid);
    scheduler.child.kill('SIGTERM');
    worker.child.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
    expect((await worker.exited).code).toBe(0);
  }, 90_000);

  it('bullbeat dev jobs.ts runs the TypeScript source through tsx, its dashboard open on loopback', async () => {
    const dev = spawnBullbeat([], {
      cwd: dir,
      env: { REDIS_URL: redis.url },
      command: [join(dir, 'node_modules/.bin/bullbeat'), 'dev', 'jobs.ts', '--port', '0'],
    });
    procs.push(dev);
    await dev.waitFor(/bullbeat dev: running/, 30_000);
    expect(dev.output()).toContain('dashboard open: no credentials, on 127.0.0.1 only');
    const url = /"dashboard":"(http:\/\/[^"]+)"/.exec(dev.output())?.[1] as string;
    const api = (await (await fetch(`${url}/api/schedules`)).json()) as { items: { id: string }[] };
    expect(api.items.map((i) => i.id).sort()).toEqual([
      'dailyReport',
      'launch-mail',
      'pollUpstream',
      'vacuum',
    ]);
    dev.child.kill('SIGINT');
    expect((await dev.exited).code).toBe(0);
  }, 60_000);

  // Last: it prunes the project to what the image's runtime stage installs. No Docker engine here: the
  // recipe's commands run by hand on this project (its build script, its runtime npm flags).
  it("deploy/app/Dockerfile's recipe fits this project: its build script, and a runtime without TypeScript that runs", async () => {
    const dockerfile = readFileSync(join(root, 'deploy/app/Dockerfile'), 'utf8');
    const build = dockerfile.slice(dockerfile.indexOf(' AS build'), dockerfile.indexOf(' AS runtime'));
    expect(build).toMatch(/^RUN npm run build$/m);
    const scripts = (
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
    ).scripts;
    expect(scripts?.build).toBe('tsc');
    const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));
    const flags = (/^RUN npm ci ([^&\n]*)/m.exec(runtime)?.[1] ?? '')
      .split(/\s+/)
      .filter((a) => a.startsWith('--omit='));
    expect(flags).toEqual(expect.arrayContaining(['--omit=dev']));
    run('npm', ['prune', ...flags, '--no-audit', '--no-fund', '--loglevel=error'], dir);
    for (const gone of ['typescript', 'tsx'])
      expect(existsSync(join(dir, 'node_modules', gone)), gone).toBe(false);
    const scheduler = spawnBullbeat([], {
      cwd: dir,
      env: { REDIS_URL: redis.url },
      command: [join(dir, 'node_modules/.bin/bullbeat'), 'scheduler', 'dist/jobs.js'],
    });
    procs.push(scheduler);
    await scheduler.waitFor(/scheduler replica running/, 30_000);
    scheduler.child.kill('SIGTERM');
    expect((await scheduler.exited).code).toBe(0);
  }, 90_000);
});
