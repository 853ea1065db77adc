#!/usr/bin/env node
import { flushTraces } from '../tracing/index.js';
import { processIO } from './cli-io.js';
import { runCli } from './run-cli.js';

// The `bullbeat` executable. Everything it uses is importable without side effects; only this file
// reads process.argv and exits (after stdout and stderr have drained, and spans held by a tracer
// provider the process registered were exported).
const code = await runCli(process.argv.slice(2), processIO());
const drained = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr), flushTraces()]);
process.exit(code);
