import type { Cluster, Command, Redis } from 'ioredis';
import { RedisCommandTimeoutError } from '../../errors/redis-command-timeout-error.js';

/** `commandTimeoutMs` when not given (ms): the manager's and the worker runtime's own clients. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/** A command this module armed (a cluster sends a command again after a redirection or a reconnect). */
const ARMED = Symbol('bullbeat.commandTimeout');

/**
 * Give every command sent on `client` a deadline of `ms`: one unanswered by then fails with a
 * `RedisCommandTimeoutError`, wherever it waits: written to a socket nobody answers (a paused or
 * partitioned Redis), queued while the client reconnects (the offline queue that
 * `maxRetriesPerRequest: null` keeps without end), or, on a `Cluster`, queued for a node that died
 * while the slots are looked up again. The deadline runs from the command's first send, across a
 * cluster's redirections. A command that failed so is not sent when its queue is flushed later (a
 * reconnect): it does not run long after its caller gave up on it. One already written to Redis may
 * still run. `0`: no deadline (ioredis's own behaviour).
 *
 * Only for bullbeat's own clients, whose commands answer at once: not for a client that blocks
 * (`XREAD BLOCK`, BullMQ's `BZPOPMIN`), nor for BullMQ's connections, which keep BullMQ's settings.
 */
export function withCommandTimeout<C extends Redis | Cluster>(client: C, ms: number): C {
  if (ms <= 0) return client;
  const send = client.sendCommand as (this: C, command: Command, ...rest: unknown[]) => unknown;
  client.sendCommand = function (this: C, command: Command, ...rest: unknown[]) {
    if (command.isSettled) return command.promise;
    const armed = command as Command & { [ARMED]?: true };
    if (!armed[ARMED]) {
      armed[ARMED] = true;
      const timer = setTimeout(() => {
        if (!command.isSettled) command.reject(new RedisCommandTimeoutError(command.name, ms));
      }, ms);
      const clear = () => clearTimeout(timer);
      command.promise.then(clear, clear);
    }
    return send.call(this, command, ...rest);
  } as C['sendCommand'];
  return client;
}
