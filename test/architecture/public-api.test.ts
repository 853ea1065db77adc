import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The package's public API, members included, is what @microsoft/api-extractor reports in
// etc/*.api.md (`npm run api:check`, run by `npm run lint`; `npm run api:update` after a deliberate
// change). These tests hold what that report does not: how the surface is reached.

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const ENTRY = join(ROOT, 'src/index.ts');

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

const program = ts.createProgram([ENTRY], compilerOptions());

// binding (by the checker) sets the parent links that reading JSDoc tags needs
program.getTypeChecker();

/** The JSDoc tags on a member of a class or an interface of a source file. */
function tagsOf(path: string, className: string, member: string): string[] {
  const source = program.getSourceFile(join(ROOT, path))!;
  const cls = source.statements.find(
    (s): s is ts.ClassDeclaration | ts.InterfaceDeclaration =>
      (ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name?.text === className,
  );
  const node = cls?.members.find(
    (m) => m.name !== undefined && ts.isIdentifier(m.name) && m.name.text === member,
  );
  if (!node) throw new Error(`${path}: no ${className}.${member}`);
  return ts.getJSDocTags(node).map((t) => t.tagName.text);
}

describe('the public API', () => {
  it('is reported by api-extractor, one report per entry point, checked by the lint step', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.lint).toContain('npm run api:check');
    for (const report of ['bullbeat', 'bullbeat-dashboard', 'bullbeat-nest']) {
      const text = readFileSync(join(ROOT, 'etc', `${report}.api.md`), 'utf8');
      expect(text).toContain(`## API Report File for "bullbeat`);
    }
  });

  it('has no plumbing on SchedulerManager: no redis getter, no keys, no options', () => {
    const text = readFileSync(join(ROOT, 'etc/bullbeat.api.md'), 'utf8');
    const start = text.indexOf('export class SchedulerManager ');
    const members = text
      .slice(start, text.indexOf('\n}\n', start))
      .split('\n')
      .map((line) => /^ {4}(?:readonly |get )?(\w+)/.exec(line)?.[1])
      .filter((name) => name !== undefined);
    expect(members).toContain('schedule');
    for (const member of ['redis', 'keys', 'options', 'prefix', 'queue', 'handlerFor', 'loopStats']) {
      expect(members).not.toContain(member);
    }
  });

  it('is named one by one: the root re-exports no folder whole', () => {
    const text = readFileSync(ENTRY, 'utf8');
    expect(text).not.toMatch(/export\s*\*/);
  });

  it('is reached through the root, `bullbeat/dashboard` and `bullbeat/nest` only: the folders’ index.ts files are internal', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: object };
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './dashboard', './nest', './package.json']);
  });

  it('keeps the test seams (the manager’s hooks, the worker’s clock) out of the published types', () => {
    // `npm run build` leaves what is tagged @internal out of the .d.ts files it writes.
    expect(compilerOptions().stripInternal).toBe(true);
    expect(tagsOf('src/scheduler/manager/scheduler-manager.ts', 'SchedulerManager', 'hooks')).toContain(
      'internal',
    );
    expect(tagsOf('src/queue/worker-options.ts', 'CreateWorkerOptions', 'clock')).toContain('internal');
  });
});
