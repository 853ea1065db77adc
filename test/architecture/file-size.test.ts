import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No source file of the product holds more than one room's worth: a file over the limit is split by
// what it does (a class that delegates to named collaborators, or modules of functions).

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));

/** The most lines a source file may have. */
const MAX_LINES = 400;

/** The folders of the product's TypeScript. */
const SOURCES = ['src', 'dashboard', 'nest', 'workers'];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Lines as an editor counts them: a final newline ends the last line, it does not start one. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

describe('file size', () => {
  it(`every .ts file under ${SOURCES.join('/, ')}/ has at most ${MAX_LINES} lines`, () => {
    const files = SOURCES.flatMap(tsFiles);
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over, `files over ${MAX_LINES} lines (split them by what they do)`).toEqual([]);
  });

  it('counts lines as an editor does', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\n\n')).toBe(2);
  });
});
