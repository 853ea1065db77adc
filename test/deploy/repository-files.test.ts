import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../cli/run-bullbeat.js';

const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('the repository as a user finds it', () => {
  it('has the MIT LICENSE that package.json names, and npm publishes it', { timeout: 60_000 }, () => {
    const pkg = JSON.parse(read('package.json')) as { license: string };
    expect(pkg.license).toBe('MIT');
    const license = read('LICENSE');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 bullbeat contributors');
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
    });
    const files = (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path);
    expect(files).toContain('LICENSE');
  });

  it("README's links stay inside the repository: relative paths exist, anchors name a heading", () => {
    const readme = read('README.md');
    const headings = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] as string)));
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    const local = targets.filter((t) => !/^[a-z]+:/.test(t));
    // The first link of the README is to a page of this repository.
    expect(/^[a-z]+:/.test(targets[0] as string)).toBe(false);
    for (const target of local) {
      if (target.startsWith('#')) {
        expect(headings.has(target.slice(1)), target).toBe(true);
      } else {
        const path = join(root, target.split('#')[0] as string);
        expect(path.startsWith(root), target).toBe(true);
        expect(existsSync(path), target).toBe(true);
      }
    }
  });
});
