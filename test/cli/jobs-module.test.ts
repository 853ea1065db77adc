import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../redis-url.js';
import { assertBuilt, type RunOptions, root, runBullbeat } from './run-bullbeat.js';
import { spawnBullbeat } from './spawn-bullbeat.js';

let dir: string;
const distIndex = pathToFileURL(join(root, 'dist/index.js')).href;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'bullbeat-cli-modules-'));
  const files: Record<string, string> = {
    'throws.mjs': "throw new Error('DATABASE_URL is not set');\n",
    'syntax.mjs': 'export default {\n',
    'no-default.mjs': 'export const answer = 42;\n',
    'number.mjs': 'export default 42;\n',
    'class.mjs': `import { SchedulerManager } from '${distIndex}';\nexport default SchedulerManager;\n`,
    'factory-throws.mjs': "export default () => { throw new Error('no config'); };\n",
    'imports-missing.mjs': "import 'no-such-package-bullbeat-test';\nexport default {};\n",
    'broken.ts': 'const x: number = ;\nexport default x;\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `bullbeat scheduler <module>` against a closed Redis port: module errors come before any
 * connection, so the command ends before it would own the process; run in this process (`runCli`).
 */
const load = (module: string, options: RunOptions = {}) =>
  runBullbeat(['scheduler', module], {
    spawn: false,
    ...options,
    env: { REDIS_URL: 'redis://127.0.0.1:1', ...options.env },
  });

describe('a missing or broken jobs module', () => {
  it('a missing file: exit 2, one line naming the path and what was tried', async () => {
    const run = await load(join(dir, 'nope'));
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `bullbeat: jobs module "${join(dir, 'nope')}": no such file (also tried .js, .mjs, .cjs, .ts, .mts, .cts and index files)\n`,
    );
  });

  it('a module that throws while loading: exit 2, naming the path, the error and where', async () => {
    const run = await load(join(dir, 'throws.mjs'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^bullbeat: jobs module ".*throws\.mjs": failed to load: Error: DATABASE_URL is not set/,
    );
    expect(run.stderr).toMatch(/throws\.mjs:1:7\)\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
  });

  it('a syntax error: exit 2, naming the path and the cause', async () => {
    // spawned: in this process the test runner's own loader words a syntax error its own way
    const run = await load(join(dir, 'syntax.mjs'), { spawn: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: jobs module ".*syntax\.mjs": failed to load: SyntaxError: /);
    expect(run.stderr).not.toContain('    at ');
  });

  it('a TypeScript syntax error (through tsx): exit 2, naming the path', async () => {
    // spawned: in this process the test runner, not tsx, would compile it
    const run = await load(join(dir, 'broken.ts'), { spawn: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bullbeat: jobs module ".*broken\.ts": failed to load: /);
  });

  it('an import that cannot be resolved: exit 2, naming the missing package', async () => {
    const run = await load(join(dir, 'imports-missing.mjs'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[ERR_MODULE_NOT_FOUND]');
    expect(run.stderr).toContain('no-such-package-bullbeat-test');
  });

  it.each([
    ['no-default.mjs', 'has no default export'],
    ['number.mjs', 'its default export is not a SchedulerManager (got number)'],
    ['class.mjs', 'its default export is a class; export an instance'],
    ['factory-throws.mjs', 'its default export threw: Error: no config'],
  ])('%s: exit 2, "%s"', async (file, message) => {
    const run = await load(join(dir, file));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`"${join(dir, file)}": ${message}`);
  });

  it('a relative path resolves from the working directory, the extension may be left out', async () => {
    const run = await load('no-default', { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`"${join(dir, 'no-default.mjs')}": has no default export`);
  });

  it('a prefix the module does not use: exit 2, explaining the mismatch (unset: the module decides)', async () => {
    const module = join(dir, 'fixed-prefix.mjs');
    writeFileSync(
      module,
      `import { SchedulerManager } from '${distIndex}';\nexport default new SchedulerManager({ prefix: 'elsewhere' });\n`,
    );
    // spawned: past the module checks the scheduler retries Redis until its own exit
    const unset = await load(module, { spawn: true });
    expect(unset.code).toBe(3); // past the module checks, on to Redis (closed here)
    const withEnv = await load(module, { env: { BULLBEAT_PREFIX: 'p2' } });
    expect(withEnv.code).toBe(2);
    expect(withEnv.stderr).toContain(
      'bullbeat: BULLBEAT_PREFIX: "p2", but the jobs module\'s SchedulerManager uses prefix "elsewhere"',
    );
    const withFlag = await runBullbeat(['scheduler', module, '--prefix', 'p1'], {
      spawn: false,
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(withFlag.code).toBe(2);
    expect(withFlag.stderr).toContain(
      '--prefix: "p1", but the jobs module\'s SchedulerManager uses prefix "elsewhere"',
    );
  });
});

describe('a good jobs module', () => {
  it('a .ts module through tsx, default export a function, decorated methods: the scheduler upserts them', async () => {
    const prefix = `cli-ts-${randomUUID()}`;
    const redis = new Redis(REDIS_URL);
    const proc = spawnBullbeat(['scheduler', 'test/cli/fixtures/jobs-decorated.ts'], {
      env: { BULLBEAT_PREFIX: prefix, TEST_QUEUE: `q-${prefix}` },
    });
    try {
      await proc.waitFor(/scheduler replica running/);
      const ids = (await redis.hkeys(`{${prefix}}:bb:schedules`)).sort();
      expect(ids).toEqual(['hourly-cleanup', 'morning-report']);
      proc.child.kill('SIGTERM');
      expect((await proc.exited).code).toBe(0);
      expect(proc.output()).toContain('stopped cleanly');
    } finally {
      proc.kill();
      const keys = await redis.keys(`{${prefix}}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });
});
