import { withManagerEnv } from '../scheduler/index.js';
import type { CliIO } from './cli-io.js';
import { outcomeOf } from './exit-code-for.js';
import { ExitCode } from './exit-codes.js';
import { createProgram, type ProgramResult } from './program.js';
import { shown, shownLines } from './terminal-text.js';

/**
 * Runs `bullbeat` with `argv` (without the node and script entries) and resolves with the exit code.
 * Errors become one line on stderr (`bullbeat: ...`, its control characters escaped: an id or a name
 * in it came from someone else); a stack trace only with LOG_LEVEL=debug or trace. Every manager made
 * meanwhile (the commands' own, a jobs module's) reads its settings from `io.env` (`withManagerEnv`).
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const result: ProgramResult = { code: ExitCode.ok };
  const program = createProgram(io, result);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.usage;
    }
    await withManagerEnv(io.env, () => program.parseAsync([...argv], { from: 'user' }));
    return result.code;
  } catch (error) {
    const { code, message } = outcomeOf(error);
    if (message) io.stderr(`bullbeat: ${shown(message)}\n`);
    const level = (io.env.LOG_LEVEL ?? '').toLowerCase();
    if (code === ExitCode.failure && (level === 'debug' || level === 'trace') && error instanceof Error) {
      io.stderr(`${shownLines(error.stack ?? '')}\n`);
    } else if (code === ExitCode.failure && !message.startsWith('shutdown')) {
      io.stderr('bullbeat: (set LOG_LEVEL=debug for the stack trace)\n');
    }
    return code;
  }
}
