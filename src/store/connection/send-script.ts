import { createHash } from 'node:crypto';
import { type Cluster, Command, type Redis } from 'ioredis';

/** A Lua script and its SHA-1, as `EVALSHA` names it. */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

/** `lua` with its SHA-1. */
export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

type Arg = string | number | Buffer;

/**
 * Run `script` on `client`: `EVALSHA sha ...args`, and `EVAL` with the script's text when Redis does
 * not know it (a restarted or failed-over Redis forgets its scripts; nothing ran then). `args` start
 * with the key count, as Redis takes them.
 *
 * What a command defined with ioredis's `defineCommand` does, without its copies of the arguments:
 * its `Command` flattens them with `Array.prototype.flat`, ~110 ns an argument on Node 20, and a
 * completion of a few hundred occurrences carries thousands (see BENCHMARKS.md, "Redis instructions
 * per run"). Sent through the client's `sendCommand`, so its offline queue, reconnection, cluster
 * routing and bullbeat's command timeout apply as to any command. Not for a client with ioredis's
 * `keyPrefix` (the arguments go as given; `usesKeyPrefix` tells).
 */
export function sendScript(
  client: Redis | Cluster,
  script: LuaScript,
  args: readonly Arg[],
): Promise<unknown> {
  const send = (c: Command) => client.sendCommand(c) as Promise<unknown>;
  return send(command('evalsha', script.sha, args)).catch((err: unknown) => {
    if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
    return send(command('eval', script.lua, args));
  });
}

/** True when `client` prefixes keys itself (ioredis's `keyPrefix`): `sendScript` does not. */
export function usesKeyPrefix(client: Redis | Cluster): boolean {
  const options = (client as { options?: { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } } })
    .options;
  return Boolean(options?.keyPrefix || options?.redisOptions?.keyPrefix);
}

function command(name: 'evalsha' | 'eval', first: string, args: readonly Arg[]): Command {
  // built empty, then given its arguments: the constructor would copy them with `flat()`
  const c = new Command(name, [], { replyEncoding: 'utf8' });
  const all: Arg[] = new Array(args.length + 1);
  all[0] = first;
  for (let i = 0; i < args.length; i++) all[i + 1] = args[i]!;
  c.args = all;
  // what the constructor does after its copy: numbers to strings, buffer mode when a Buffer is among them
  c.stringifyArguments();
  return c;
}
