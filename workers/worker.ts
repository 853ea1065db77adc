#!/usr/bin/env node
// The worker entry point: `bullbeat worker`, the very same code path (flags, defaults, queues served,
// logging, exit codes: 3 when Redis is unreachable, 0 after a clean SIGTERM/SIGINT shutdown).
//   node workers/worker.js <jobs-module> [--queues a,b] [--concurrency 10] [--grace-ms 30000] ...
// Global flags (--redis-url, --prefix, --log-level, ...) may come before or after the jobs module.
import { processIO, runCli } from '../src/cli/index.js';

const code = await runCli(['worker', ...process.argv.slice(2)], processIO());
const drained = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
