#!/usr/bin/env node
// tsc compiles only .ts: the store's Lua scripts (src/store/lua, read at run time by
// src/store/scripts.ts from the folder beside it) are copied to dist/src/store/lua as they are.
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/store/lua/', import.meta.url);
const to = new URL('../dist/src/store/lua/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true, filter: (src) => !src.endsWith('~') });
