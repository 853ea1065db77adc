// The CLI's door: `workers/worker.ts` runs `bullbeat worker` through it (`main.ts` is the executable).
export { type CliIO, processIO } from './cli-io.js';
export { runCli } from './run-cli.js';
