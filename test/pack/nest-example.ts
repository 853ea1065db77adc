import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { linkOrCopy, root } from '../cli/run-bullbeat.js';
import { type RunningBullbeat, spawnBullbeat } from '../cli/spawn-bullbeat.js';

// The Nest application of examples/nest/, copied into a temporary folder and installed from the packed
// tarball (npm's cache first), as a user who copies the example does. Shared by the tests that run it.

export const EXAMPLE = join(root, 'examples/nest');

/** Runs a command to completion; throws with its output when it fails. */
export function run(command: string, args: string[], cwd: string, timeoutMs = 300_000): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${r.status ?? r.signal ?? r.error}):\n${r.stdout}\n${r.stderr}`,
    );
  }
  return r.stdout;
}

/** `npm pack` of the repository (built first by the caller) into `dir`; the tarball's path. */
export function packBullbeat(dir: string): string {
  const name = run('npm', ['pack', '--silent', '--pack-destination', dir], root).trim().split('\n').pop();
  return join(dir, name as string);
}

export interface ExampleSetup {
  /** `'module'` for an ESM application; default: CommonJS, as `nest new` makes it. */
  type?: 'module';
  /** Package specs that replace the example's own (e.g. `@nestjs/core@^10`). */
  dependencies?: Record<string, string>;
  /** A tsconfig.json that replaces the example's (e.g. Nest 10's `module: commonjs`). */
  tsconfig?: object;
}

/** Copies examples/nest to `dir`, installs it with bullbeat from `tarball`, and builds it (`npm run build`). */
export function installExample(dir: string, tarball: string, setup: ExampleSetup = {}): void {
  cpSync(EXAMPLE, dir, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist)$/.test(src) && !src.endsWith('.tsbuildinfo'),
  });
  const pkgPath = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    type?: string;
    dependencies: Record<string, string>;
  };
  pkg.dependencies.bullbeat = `file:${tarball}`;
  for (const [name, spec] of Object.entries(setup.dependencies ?? {})) pkg.dependencies[name] = spec;
  if (setup.type) pkg.type = setup.type;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  if (setup.tsconfig)
    writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(setup.tsconfig, null, 2)}\n`);
  rmSync(join(dir, 'package-lock.json'), { force: true });
  // No --legacy-peer-deps: a Nest version outside bullbeat's peer range fails here (ERESOLVE).
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], dir, 480_000);
  run('npm', ['run', 'build'], dir);
}

/**
 * A second application beside one that `installExample` set up: its files copied, its installed
 * dependencies linked (`linkOrCopy`: npm would install the same tree again, as `type` does not change
 * what it resolves, and a copy of it costs more I/O than the install), `type` set, and built (`npm run
 * build`). The two share those files: what changes one application's node_modules in place changes both.
 */
export function copyInstalledExample(from: string, dir: string, setup: Pick<ExampleSetup, 'type'>): void {
  const own = (src: string) => ![join(from, 'node_modules'), join(from, 'dist')].includes(src);
  cpSync(from, dir, { recursive: true, filter: (src) => own(src) && !src.endsWith('.tsbuildinfo') });
  linkOrCopy(join(from, 'node_modules'), join(dir, 'node_modules'));
  const pkgPath = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { type?: string };
  if (setup.type) pkg.type = setup.type;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  run('npm', ['run', 'build'], dir);
}

/** One line per run of the example's `ReportService.dailyReport`, as its Nest logger printed it. */
export interface ReportRun {
  occurrence: string;
  pid: number;
}

const RUN_LINE = /daily report sent: occurrence (\S+) \(scheduled\), pid (\d+)/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: Nest colours its output
const stripColours = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

export function reportRuns(output: string): ReportRun[] {
  return [...stripColours(output).matchAll(RUN_LINE)].map((m) => ({
    occurrence: m[1] as string,
    pid: Number(m[2]),
  }));
}

/** Starts `node dist/main.js` of the installed example, firing every second, on `redisUrl` and `prefix`. */
export function startExample(dir: string, redisUrl: string, prefix: string): RunningBullbeat {
  return spawnBullbeat([], {
    cwd: dir,
    command: ['dist/main.js'],
    env: { REDIS_URL: redisUrl, BULLBEAT_PREFIX: prefix, REPORT_CRON: '* * * * * *', NO_COLOR: '1' },
  });
}

/**
 * Runs `instances` processes of the installed example at once on one Redis and prefix until `runs`
 * occurrences have run, stops them with SIGTERM, and checks: each occurrence ran once across all of
 * them, bullbeat logged through Nest's logger (no pino JSON line), and each shut down cleanly.
 */
export async function runInstancesOnce(
  dir: string,
  redisUrl: string,
  prefix: string,
  { instances = 2, runs = 6 } = {},
): Promise<{ runs: ReportRun[]; outputs: string[] }> {
  const procs = Array.from({ length: instances }, () => startExample(dir, redisUrl, prefix));
  try {
    for (const p of procs) await p.waitFor(/bullbeat\/nest: started/, 120_000);
    const started = Date.now();
    const all = () => procs.flatMap((p) => reportRuns(p.output()));
    while (new Set(all().map((r) => r.occurrence)).size < runs) {
      if (Date.now() - started > 120_000) throw new Error(`fewer than ${runs} runs:\n${procs[0]?.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const p of procs) p.child.kill('SIGTERM');
    const exits = await Promise.all(procs.map((p) => p.exited));
    const outputs = procs.map((p) => stripColours(p.output()));
    for (const [i, out] of outputs.entries()) {
      // Nest's shutdown hooks close the application, then re-raise the signal.
      expect([0, null], out).toContain(exits[i]?.code);
      expect(out).toContain('[bullbeat] bullbeat: scheduler stopped');
      expect(out).not.toMatch(/^\{"level":/m);
    }
    const done = procs.flatMap((p) => reportRuns(p.output()));
    const byOccurrence = new Map<string, number>();
    for (const r of done) byOccurrence.set(r.occurrence, (byOccurrence.get(r.occurrence) ?? 0) + 1);
    expect([...byOccurrence].filter(([, n]) => n > 1)).toEqual([]);
    expect(byOccurrence.size).toBeGreaterThanOrEqual(runs);
    return { runs: done, outputs };
  } finally {
    for (const p of procs) p.kill();
    await Promise.all(procs.map((p) => p.exited));
  }
}
