#!/usr/bin/env node
// The package's public surface, members included, as @microsoft/api-extractor reports it: one report a
// package entry point (etc/bullbeat.api.md for `bullbeat`, etc/bullbeat-dashboard.api.md and
// etc/bullbeat-nest.api.md for the sub-paths), read from the declarations a build publishes.
//
//   node scripts/api-report.mjs           check: fails when the surface differs from the committed reports
//   node scripts/api-report.mjs --update  rewrites the reports after a deliberate change (review the diff)
//   node scripts/api-report.mjs --model   also writes the doc model (.api/model/*.api.json) for docs:api
//
// A type that a public declaration names but no entry point exports (ae-forgotten-export) is an error:
// a user could not name it. The declarations are emitted afresh into .api/dts (no full build needed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { CompilerState, Extractor, ExtractorConfig } = require('@microsoft/api-extractor');

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.api');
const dts = join(work, 'dts');
const update = process.argv.includes('--update');
const model = process.argv.includes('--model');

/** The package's entry points: package.json `exports`, by the report each one writes. */
const ENTRIES = [
  { report: 'bullbeat', types: 'index.d.ts' },
  { report: 'bullbeat-dashboard', types: 'dashboard/index.d.ts' },
  { report: 'bullbeat-nest', types: 'nest/index.d.ts' },
];

function emitDeclarations() {
  mkdirSync(work, { recursive: true });
  rmSync(dts, { recursive: true, force: true });
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  // the build's settings (stripInternal included), over the three entry points' folders only
  const tsconfig = join(work, 'tsconfig.json');
  const include = ['../src', '../dashboard', '../nest'];
  writeFileSync(tsconfig, JSON.stringify({ extends: '../tsconfig.build.json', include }));
  const flags = [
    '--emitDeclarationOnly',
    '--declarationMap',
    'false',
    '--sourceMap',
    'false',
    '--outDir',
    dts,
  ];
  execFileSync(process.execPath, [tsc, '-p', tsconfig, ...flags], { cwd: root, stdio: 'inherit' });
  // the package root re-exports src, as scripts/write-root-entry.mjs writes dist/index.d.ts
  writeFileSync(join(dts, 'index.d.ts'), "export * from './src/index.js';\n");
}

function configFor(entry) {
  const error = { logLevel: 'error', addToApiReportFile: false };
  return {
    projectFolder: root,
    mainEntryPointFilePath: join(dts, entry.types),
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: ['node'],
          skipLibCheck: true,
        },
        files: ENTRIES.map((e) => join(dts, e.types)),
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: `${entry.report}.api.md`,
      reportFolder: join(root, 'etc'),
      reportTempFolder: join(work, 'temp'),
    },
    docModel: { enabled: model, apiJsonFilePath: join(work, 'model', `${entry.report}.api.json`) },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      compilerMessageReporting: { default: { logLevel: 'warning' } },
      extractorMessageReporting: {
        default: { logLevel: 'warning' },
        'ae-forgotten-export': error,
        'ae-missing-release-tag': { logLevel: 'none' },
        'ae-unresolved-link': { logLevel: 'none' },
        'ae-undocumented': { logLevel: 'none' },
        'ae-internal-missing-underscore': { logLevel: 'none' },
      },
      // TSDoc's stricter grammar (e.g. `@default` with prose, `{@link}` to a file) is not enforced here
      tsdocMessageReporting: { default: { logLevel: 'none' } },
    },
  };
}

/**
 * The doc model of a sub-path as a package of its own (`bullbeat-dashboard` for `bullbeat/dashboard`):
 * api-documenter takes one package per name, and each model is named after package.json.
 */
function nameSubPathModels() {
  for (const entry of ENTRIES.slice(1)) {
    const file = join(work, 'model', `${entry.report}.api.json`);
    const name = entry.report;
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    doc.name = name;
    writeFileSync(file, JSON.stringify(doc, null, 2).replaceAll('"bullbeat!', `"${name}!`));
  }
}

/** The names an entry point's declaration file exports. */
function exportedNames(program, file) {
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  return new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []);
}

function run() {
  emitDeclarations();
  mkdirSync(join(root, 'etc'), { recursive: true });
  const configs = ENTRIES.map((entry) =>
    ExtractorConfig.prepare({
      configObject: configFor(entry),
      configObjectFullPath: join(root, 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
    }),
  );
  // one TypeScript program for the three analyses
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.slice(1).map((c) => c.mainEntryPointFilePath),
  });
  const rootNames = exportedNames(compilerState.program, join(dts, ENTRIES[0].types));

  let failed = 0;
  ENTRIES.forEach((entry, i) => {
    const result = Extractor.invoke(configs[i], {
      localBuild: update,
      compilerState,
      // a sub-path's declaration may name a type of the root entry: `import type { X } from 'bullbeat'`
      messageCallback: (message) => {
        const name = /The symbol "([^"]+)"/.exec(message.text)?.[1];
        if (i > 0 && message.messageId === 'ae-forgotten-export' && name && rootNames.has(name)) {
          message.logLevel = 'none';
        }
      },
    });
    if (!result.succeeded) {
      failed++;
      const why =
        result.errorCount > 0
          ? `${result.errorCount} error(s) above`
          : `the surface changed: etc/${entry.report}.api.md differs (run \`npm run api:update\` and review its diff)`;
      console.error(`api-report: ${entry.report}: ${why}`);
    }
  });
  if (model) nameSubPathModels();
  if (failed > 0) process.exit(1);
  console.log(
    update ? 'api-report: reports written to etc/' : 'api-report: the surface matches etc/*.api.md',
  );
}

run();
