/**
 * The `bullbeat` command's exit codes. Long-running commands (`dev`, `scheduler`, `worker`,
 * `dashboard`) exit 0 after a clean shutdown on SIGINT or SIGTERM.
 */
export const ExitCode = {
  /** Done; or a long-running command shut down cleanly. */
  ok: 0,
  /** A failure while running: an unexpected error, a shutdown that did not finish in time. */
  failure: 1,
  /** Bad usage or configuration: unknown command or flag, bad value, a jobs module that cannot be used. */
  usage: 2,
  /** Redis did not answer. */
  redisUnreachable: 3,
  /** The schedule id named does not exist. */
  notFound: 4,
  /** `bullbeat status`: no scheduler replica alive, or schedules late (a failed probe). */
  unhealthy: 5,
  /** `bullbeat plan`: starting the jobs module would change the stored schedules (0: it would change nothing). */
  changes: 6,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
