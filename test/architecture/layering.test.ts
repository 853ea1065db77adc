import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative import of a file, resolved to a path from the repository's root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    out.push(relative(ROOT, join(ROOT, dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** The folder of src/ a path belongs to (`src/store/keys.ts` → `store`), or null. */
const folderOf = (path: string) => /^src\/([a-z-]+)\//.exec(path)?.[1] ?? null;

/**
 * DESIGN.md: imports go one way, `cron <- triggers <- scheduler -> store <- queue`; `cli` and
 * `dashboard` sit on top and use the folders' `index.ts` surfaces only.
 */
const MAY_NOT_IMPORT: Record<string, readonly string[]> = {
  cron: ['triggers', 'store', 'scheduler', 'queue', 'cli', 'ops', 'insight'],
  triggers: ['store', 'scheduler', 'queue', 'cli', 'ops', 'insight'],
  store: ['scheduler', 'queue', 'cli', 'ops', 'insight'],
  queue: ['scheduler', 'cli', 'ops', 'insight'],
  scheduler: ['cli', 'ops', 'insight'],
  // spans only: the fire loop and the worker runtime call it, it knows neither
  tracing: ['cron', 'triggers', 'store', 'scheduler', 'queue', 'cli', 'ops', 'insight'],
};

describe('layering', () => {
  it('imports go one way: cron <- triggers <- scheduler -> store <- queue', () => {
    const wrong: string[] = [];
    for (const file of files('src')) {
      const from = folderOf(file);
      const banned = from ? MAY_NOT_IMPORT[from] : undefined;
      if (!banned) continue;
      for (const target of importsOf(file)) {
        const to = folderOf(target);
        if (to && banned.includes(to)) wrong.push(`${file} imports ${target}`);
      }
      if (importsOf(file).some((t) => t.startsWith('dashboard/')))
        wrong.push(`${file} imports the dashboard`);
    }
    expect(wrong).toEqual([]);
  });

  it('the CLI and the dashboard use the folders’ index.ts surfaces only', () => {
    const wrong: string[] = [];
    for (const file of [...files('dashboard'), ...files('src/cli')]) {
      const own = folderOf(file);
      for (const target of importsOf(file)) {
        const to = folderOf(target);
        if (!to || to === own) continue;
        if (!target.endsWith('/index.ts')) wrong.push(`${file} imports ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
