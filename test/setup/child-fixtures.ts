// The TypeScript fixtures that tests run as child processes (scheduler replicas, jobs modules), compiled
// once per test run against the build (dist/), as users run bullbeat, instead of loaded through tsx at
// every spawn: a child then loads in ~0.7 s of CPU rather than ~1.8 s, which a chaos test that starts a
// replica every 1-2 s on a 2-core box feels. vitest globalSetup (the tiers that spawn them); the tests
// take a fixture's compiled path from `childFixture`.
//
// Each fixture is bundled with its test helpers; what it imports from src/ stays an import of the same
// module in dist/src/, so that a fixture and bullbeat's CLI loading it share one copy of the house.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(root, 'node_modules/.cache/bullbeat-test-fixtures');

/** Every fixture a test spawns (or hands to `bullbeat worker`), relative to the repository. */
export const CHILD_FIXTURES = [
  'test/scheduler/fixtures/replica.ts',
  'test/scheduler/fixtures/backfiller.ts',
  'test/scheduler/fixtures/default-replica.ts',
  'test/scheduler/fixtures/trust-replica.ts',
  'test/scheduler/fixtures/audit-changer.ts',
  'test/scheduler/fixtures/alert-replica.ts',
  'test/queue/fixtures/worker-jobs.ts',
  'test/queue/fixtures/manager-jobs.ts',
  'test/queue/fixtures/group-jobs.ts',
  'test/tracing/fixtures/traced-process.ts',
] as const;

const outFile = (fixture: string) => join(OUT, fixture.replace(/\.ts$/, '.mjs'));

/**
 * The compiled form of a fixture (a path inside the repository or absolute), to run with plain
 * `node`. Throws when the fixture is not in CHILD_FIXTURES or was not compiled (no globalSetup).
 */
export function childFixture(fixture: string): string {
  const rel = relative(root, resolve(root, fixture));
  if (!(CHILD_FIXTURES as readonly string[]).includes(rel)) {
    throw new Error(`${rel} is not in CHILD_FIXTURES (test/setup/child-fixtures.ts): add it there`);
  }
  const out = outFile(rel);
  if (!existsSync(out)) {
    throw new Error(`${rel} is not compiled: its tier needs test/setup/child-fixtures.ts in globalSetup`);
  }
  return out;
}

/** src/x.ts (as a fixture imports it, `src/x.js`) becomes an external import of dist/src/x.js. */
const sourcesFromBuild: Plugin = {
  name: 'sources-from-build',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      const inSrc = relative(join(root, 'src'), target);
      if (inSrc.startsWith('..')) return undefined;
      const built = join(root, 'dist/src', inSrc.replace(/\.ts$/, '.js'));
      if (!existsSync(built)) return { errors: [{ text: `${built} is missing: npm run build` }] };
      return { path: built, external: true };
    });
  },
};

/**
 * Builds dist/ when a source is newer, then bundles every fixture. Once per process: each tier that
 * spawns fixtures names this global setup, and vitest runs the tiers' setups in one process.
 */
export function compileChildFixtures(): Promise<void> {
  const once = globalThis as { bullbeatChildFixtures?: Promise<void> };
  once.bullbeatChildFixtures ??= compile();
  return once.bullbeatChildFixtures;
}

async function compile(): Promise<void> {
  // `npm test` builds first (pretest); a single file run with `npx vitest` may come after an edit.
  execFileSync(process.execPath, [join(root, 'scripts/prepare.mjs'), '--build'], { stdio: 'inherit' });
  await Promise.all(
    CHILD_FIXTURES.map(async (fixture) => {
      const out = outFile(fixture);
      const result = await build({
        entryPoints: [join(root, fixture)],
        outfile: out,
        bundle: true,
        packages: 'external',
        platform: 'node',
        format: 'esm',
        target: 'node20',
        write: false,
        logLevel: 'silent',
        plugins: [sourcesFromBuild],
      });
      // written whole, then renamed: a file run alone may compile while another run reads
      const code = result.outputFiles[0]!.text;
      mkdirSync(dirname(out), { recursive: true });
      const tmp = `${out}.${process.pid}.tmp`;
      writeFileSync(tmp, code);
      renameSync(tmp, out);
    }),
  );
}

export default compileChildFixtures;
