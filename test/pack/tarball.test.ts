import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, root } from '../cli/run-bullbeat.js';

// What the published tarball holds (`npm pack --dry-run --json`, nothing written): the docs the README
// links to, so that a link read from node_modules/bullbeat, or on npmjs.com, lands on a file that is
// there; and none of the repository's own demo build.

/**
 * Links in docs/ to files of the repository's deployment (the Dockerfiles, the compose files, a tracing
 * set-up): docs/deployment.md and docs/tracing.md describe them, and they are not part of the package.
 */
const REPOSITORY_ONLY = new Set([
  'Dockerfile',
  'docker-compose.yml',
  'docker-compose.cluster.yml',
  'deploy/app/Dockerfile',
  'deploy/app/.dockerignore',
  'examples/otel.mjs',
]);

let files: Set<string>;

beforeAll(() => {
  assertBuilt();
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  const [pack] = JSON.parse(r.stdout) as [{ files: { path: string }[] }];
  files = new Set(pack.files.map((f) => f.path));
}, 60_000);

/** The relative links of a markdown file, resolved from the package root (anchors dropped). */
function relativeLinks(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((href) => !/^[a-z]+:/i.test(href) && !href.startsWith('#'))
    .map((href) => normalize(join(dirname(file), href.replace(/#.*$/, ''))).replace(/\/$/, ''));
}

/** A link lands in the tarball: a file it holds, or a folder it holds files under. */
function inTarball(path: string): boolean {
  return files.has(path) || [...files].some((f) => f.startsWith(`${path}/`));
}

describe('the npm tarball', () => {
  it('holds every page of docs/, the README and the license', () => {
    const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
    expect(docs.length).toBeGreaterThan(10);
    for (const page of docs) expect(files, `docs/${page}`).toContain(`docs/${page}`);
    for (const f of ['README.md', 'LICENSE', 'package.json']) expect(files).toContain(f);
  });

  it('every link of the README points at a file in the tarball', () => {
    const links = relativeLinks('README.md');
    expect(links).toContain('docs/schedules.md');
    expect(links.filter((l) => !inTarball(l))).toEqual([]);
  });

  it('every link between the docs points at a file in the tarball; the rest at repository files that exist', () => {
    const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
    const links = pages.flatMap((page) => relativeLinks(`docs/${page}`));
    expect(links.filter((l) => !REPOSITORY_ONLY.has(l) && !inTarball(l))).toEqual([]);
    for (const l of links.filter((x) => REPOSITORY_ONLY.has(x)))
      expect(existsSync(join(root, l)), l).toBe(true);
  });

  it('ships the build of the library, not the demo of `npm start` (dist/examples)', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/src/cli/main.js');
    expect([...files].filter((f) => f.startsWith('dist/examples/'))).toEqual([]);
  });
});
