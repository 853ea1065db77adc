import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

// Where a test may name a Redis address itself: the setup that chooses the test Redis, the module
// that hands it out, and the deployment tests that read compose files (Redis's default port inside them).
const ALLOWED = [/^test\/setup\//, /^test\/redis-url\.ts$/, /^test\/deploy\//, /^test\/architecture\//];

/** A default Redis address in code: the port itself, or an ioredis client made with no target. */
// Redis's default port, spelled so that this file does not name it itself
const DEFAULT_PORT = String(6000 + 379);
const DEFAULT_REDIS = new RegExp(`\\b${DEFAULT_PORT}\\b|new (?:IO)?Redis\\(\\s*\\)`);

describe('tests take Redis from test/redis-url.ts', () => {
  it('no test file reaches the default Redis address by itself (npm test runs where no Redis listens there)', () => {
    const offenders = files('test')
      .filter((file) => !ALLOWED.some((allowed) => allowed.test(file)))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (DEFAULT_REDIS.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });
});
