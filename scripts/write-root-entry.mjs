#!/usr/bin/env node
// tsc mirrors the repository's folders under dist/ (dist/src, dist/dashboard, dist/workers); the
// package root is dist/index.js, which re-exports the library's public surface from dist/src.
import { writeFileSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
writeFileSync(new URL('index.js', dist), "export * from './src/index.js';\n");
writeFileSync(new URL('index.d.ts', dist), "export * from './src/index.js';\n");
