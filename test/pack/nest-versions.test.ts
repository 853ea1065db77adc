import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, root } from '../cli/run-bullbeat.js';
import { startRedisServer } from '../setup/redis-server.js';
import { EXAMPLE, installExample, packBullbeat, runInstancesOnce } from './nest-example.js';

// Each major of NestJS in bullbeat's peer range, installed from the registry (the newest release of
// the major; no --legacy-peer-deps, so a major outside the range fails at install) into a copy of
// examples/nest, built with the tsconfig that `nest new` of that major writes, and run as two
// processes on one prefix. One install per major; npm's cache serves the reruns. The newest major is
// the example's own: test/pack/nest-apps.test.ts installs and runs it as it stands (CommonJS and ESM),
// so it is not installed a second time here.

/** `nest new`'s tsconfig.json in Nest 10 (and early 11): CommonJS output, node10 module resolution. */
const NEST_10_TSCONFIG = {
  compilerOptions: {
    module: 'commonjs',
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2021',
    sourceMap: true,
    outDir: './dist',
    baseUrl: './',
    incremental: true,
    skipLibCheck: true,
    strictNullChecks: false,
    noImplicitAny: false,
    strictBindCallApply: false,
    forceConsistentCasingInFileNames: false,
    noFallthroughCasesInSwitch: false,
  },
};

const peers = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  }
).peerDependencies;

const MAJORS = [10, 11, 12] as const;
const NEWEST = MAJORS.at(-1);

describe("NestJS 10 and 11 from the registry (12 is the example's own), with bullbeat from the packed tarball", () => {
  let dir: string;
  let tarball: string;
  let redis: { url: string; stop(): Promise<void> };

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'bullbeat-nest-versions-'));
    tarball = packBullbeat(dir);
    redis = await startRedisServer();
  }, 120_000);

  afterAll(async () => {
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('the peer range names exactly the majors tested here', () => {
    const range = MAJORS.map((m) => `^${m}.0.0`).join(' || ');
    expect(peers['@nestjs/common']).toBe(range);
    expect(peers['@nestjs/core']).toBe(range);
    // The example itself is on the newest major.
    const example = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(example.dependencies['@nestjs/core']).toMatch(new RegExp(`^\\^?${NEWEST}\\.`));
    expect(example.dependencies['@nestjs/common']).toMatch(new RegExp(`^\\^?${NEWEST}\\.`));
  });

  for (const major of MAJORS.filter((m) => m !== NEWEST)) {
    it(`Nest ${major}: installs, builds as \`nest new\` sets it up, two instances run each occurrence once`, async () => {
      const app = join(dir, `nest${major}`);
      installExample(app, tarball, {
        dependencies: { '@nestjs/common': `^${major}.0.0`, '@nestjs/core': `^${major}.0.0` },
        ...(major === 10 && { tsconfig: NEST_10_TSCONFIG }),
      });
      const installed = JSON.parse(
        readFileSync(join(app, 'node_modules/@nestjs/core/package.json'), 'utf8'),
      ) as { version: string };
      expect(installed.version.split('.')[0]).toBe(String(major));
      await runInstancesOnce(app, redis.url, `nest${major}`, { runs: 3 });
      rmSync(app, { recursive: true, force: true });
    }, 900_000);
  }
});
