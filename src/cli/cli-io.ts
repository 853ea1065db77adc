/** What a command reads and writes, so that the program can be driven in-process as well as from a shell. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdoutIsTTY: boolean;
  /** The current time (epoch ms). */
  now: () => number;
}

/**
 * The process's own streams. A reader that goes away early (`bullbeat --help | head -1`) is not an
 * error: once stdout's pipe is closed, what is left to print is dropped and the exit code stands.
 */
export function processIO(): CliIO {
  let stdoutClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    stdoutClosed = true;
  });
  return {
    stdout: (text) => {
      if (!stdoutClosed) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: process.stdout.isTTY === true,
    now: () => Date.now(),
  };
}
