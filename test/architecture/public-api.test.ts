import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The package's public API is what `src/index.ts` names; `public-api.txt` holds it, one `kind name`
// a line, sorted. A name added to or taken from the root changes that file too, on purpose:
// `npx vitest run test/architecture/public-api.test.ts -u` rewrites it after a deliberate change.

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const ENTRY = join(ROOT, 'src/index.ts');

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

const program = ts.createProgram([ENTRY], compilerOptions());
const checker = program.getTypeChecker();

function kindOf(symbol: ts.Symbol): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const f = target.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Variable) return 'constant';
  if (f & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) return 'type';
  return `unknown(${f})`;
}

function rootExports(): string[] {
  const module = checker.getSymbolAtLocation(program.getSourceFile(ENTRY)!)!;
  return checker
    .getExportsOfModule(module)
    .map((s) => `${kindOf(s)} ${s.name}`)
    .sort();
}

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
  it('is the list in public-api.txt: names and kinds, sorted', async () => {
    const names = rootExports();
    await expect(`${names.join('\n')}\n`).toMatchFileSnapshot('public-api.txt');
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
