#!/usr/bin/env node
import { processIO } from './cli-io.js';
import { runCli } from './run-cli.js';

// The `bullbeat` executable. Everything it uses is importable without side effects; only this file
// reads process.argv and exits (after stdout and stderr have drained).
const code = await runCli(process.argv.slice(2), processIO());
const drained = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
