#!/usr/bin/env node
// tsc compiles only .ts: the store's Lua scripts (src/store/scripts/lua, read at run time by
// src/store/scripts/scripts.ts from the folder beside it) are copied to dist/src/store/scripts/lua as they are.
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/store/scripts/lua/', import.meta.url);
const to = new URL('../dist/src/store/scripts/lua/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith('~') });
