import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

  it("README's and docs' links stay inside the repository: relative paths exist, anchors name a heading", () => {
    const pages = [
      'README.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const page of pages) {
      const text = read(page);
      const headings = new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] as string)));
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
      for (const target of targets.filter((t) => !/^[a-z]+:/.test(t))) {
        if (target.startsWith('#')) {
          expect(headings.has(target.slice(1)), `${page}: ${target}`).toBe(true);
        } else {
          const path = join(root, dirname(page), target.split('#')[0] as string);
          expect(path.startsWith(root), `${page}: ${target}`).toBe(true);
          expect(existsSync(path), `${page}: ${target}`).toBe(true);
        }
      }
    }
    // The first link of the README is to a page of this repository.
    const first = read('README.md').match(/\]\(([^)\s]+)\)/)?.[1] as string;
    expect(/^[a-z]+:/.test(first)).toBe(false);
  });

  it('the README is one page: every docs page is linked from it and starts with the question it answers', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(250);
    for (const file of readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))) {
      expect(readme, `README links docs/${file}`).toContain(`](docs/${file})`);
      const [title, blank, question] = read(`docs/${file}`).split('\n');
      expect(title, `docs/${file} has a title`).toMatch(/^# \S/);
      expect(blank).toBe('');
      // the question it answers: the title itself, or the line under it
      const asks = /\?$/.test(title as string) || /^\*.+\?\*$/.test(question as string);
      expect(asks, `docs/${file} opens with its question`).toBe(true);
    }
  });
});
