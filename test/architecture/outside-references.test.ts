import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Code, comments and tests explain themselves from inside the repository: they cite no document
// that is not in it (the published .d.ts files carry the comments) and no tracker's issue numbers.

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const CODE = ['src', 'dashboard', 'nest', 'workers', 'examples', 'bench', 'scripts', 'test', 'deploy'];

const OUTSIDE: readonly [RegExp, string][] = [
  [/\bDESIGN\.md\b/, 'a design document that is not in the repository'],
  [/\bissues?\s*#?\d+/i, 'a tracker issue number'],
  [/\b(?:PR|pull request)\s*#?\d+/i, 'a pull request number'],
  [/(?:^|[\s'"`(])\/(?:work|home|tmp\/studio)\//, 'a path of one machine'],
];

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'node_modules' ? [] : files(path);
    return /\.(ts|mts|mjs|js|lua|md|json|ya?ml|sh)$/.test(name) ? [path] : [];
  });
}

describe('references outside the repository', () => {
  it('no file of the code cites a document outside the repository or a tracker number', () => {
    const found: string[] = [];
    for (const file of CODE.flatMap(files)) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const [pattern, what] of OUTSIDE) {
            if (pattern.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 100)}`);
          }
        });
    }
    expect(found).toEqual([]);
  });
});
