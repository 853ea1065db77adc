import ts from 'typescript';

// Finds the Redis commands a source file sends itself: a call of a method that ioredis declares
// (on a client, a cluster, a pipeline or a multi, `call` and `eval` included), found by the type
// checker rather than by name, so `Map.get`, `URLSearchParams.set` or `Function.call` are never
// taken for one; and Lua that calls Redis (`redis.call(`, `redis.pcall(`) written in the source.

/** Opening and closing a connection reads and writes nothing: these ioredis methods are not counted. */
const LIFECYCLE = new Set([
  'connect',
  'disconnect',
  'quit',
  'duplicate',
  'nodes',
  'on',
  'once',
  'off',
  'addListener',
  'removeListener',
  'removeAllListeners',
  'emit',
  'listenerCount',
]);

const LUA_CALL = /\bredis\.p?call\s*\(/;

const IOREDIS = /[/\\]node_modules[/\\]ioredis[/\\]/;

/** One command sent outside the door: `file:line method`. */
export interface RedisUse {
  file: string;
  line: number;
  what: string;
}

function declaredByIoredis(symbol: ts.Symbol | undefined, checker: ts.TypeChecker): boolean {
  if (!symbol) return false;
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const decls = target.getDeclarations() ?? [];
  return decls.length > 0 && decls.every(inIoredis);
}

/** ioredis's classes and interfaces whose methods send commands (a client, a cluster, a pipeline, a multi). */
const COMMANDERS = new Set([
  'Redis',
  'Cluster',
  'Pipeline',
  'Commander',
  'RedisCommander',
  'ChainableCommander',
  'Transaction',
]);

/** Inside ioredis's .d.ts files, or inside a `declare module 'ioredis'` (commands added to its types). */
function inIoredis(node: ts.Node): boolean {
  if (IOREDIS.test(node.getSourceFile().fileName)) return true;
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isModuleDeclaration(n) && ts.isStringLiteral(n.name) && n.name.text === 'ioredis') return true;
  }
  return false;
}

/** The method names of ioredis's commanders, read from their declarations (no checker: a cheap first sieve). */
function ioredisNames(program: ts.Program): Set<string> {
  const names = new Set<string>();
  for (const source of program.getSourceFiles()) {
    const visit = (node: ts.Node): void => {
      if (
        (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) &&
        node.name &&
        COMMANDERS.has(node.name.text) &&
        inIoredis(node)
      ) {
        for (const m of node.members) if (m.name && ts.isIdentifier(m.name)) names.add(m.name.text);
        return;
      }
      ts.forEachChild(node, visit);
    };
    if (IOREDIS.test(source.fileName) || source.text.includes("declare module 'ioredis'")) visit(source);
  }
  return names;
}

/** The Redis commands `files` send themselves, read with the type checker of one program over them. */
export function redisUses(files: readonly string[], host?: ts.CompilerHost): RedisUse[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    experimentalDecorators: true,
  };
  const program = ts.createProgram({
    rootNames: [...files],
    options,
    host: host ?? ts.createCompilerHost(options),
  });
  const checker = program.getTypeChecker();
  // only a call by a name ioredis declares is asked of the checker (the checker is the slow part)
  const names = ioredisNames(program);
  const uses: RedisUse[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`redis-door: cannot read ${file}`);
    const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const name = node.expression.name;
        if (
          names.has(name.text) &&
          !LIFECYCLE.has(name.text) &&
          declaredByIoredis(checker.getSymbolAtLocation(name), checker)
        ) {
          uses.push({ file, line: at(node), what: name.text });
        }
      }
      if (
        (ts.isStringLiteral(node) ||
          ts.isNoSubstitutionTemplateLiteral(node) ||
          ts.isTemplateExpression(node)) &&
        LUA_CALL.test(node.getText(source))
      ) {
        uses.push({ file, line: at(node), what: 'lua' });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return uses;
}

/** A compiler host that reads `planted` (path → text) before the disk: for the scanner's own test. */
export function plantedHost(planted: Record<string, string>): ts.CompilerHost {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022 };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name in planted
      ? ts.createSourceFile(name, planted[name]!, lang, true)
      : getSourceFile(name, lang, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name in planted || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => planted[name] ?? readFile(name);
  return host;
}
