import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { BullbeatError } from '../../errors/bullbeat-error.js';
import { luaScript } from '../connection/index.js';

/**
 * The Lua scripts of the store, BullMQ's way: one file per script, `lua/<name>-<numkeys>.lua`
 * (`-n`: a variable key count, passed by the caller first), each opening with a header that names
 * every `KEYS[i]` and `ARGV[i]`; shared fragments in `lua/includes/`, pulled in by a line
 * `--- @include "<path without .lua>"` (relative to the including file; each fragment once per script).
 * The build copies `src/store/scripts/lua` next to this file in `dist/`.
 */
const LUA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'lua');

const FILE = /^([a-z][a-z-]*?)-(\d+|n)\.lua$/;
const INCLUDE = /^--- @include "([^"]+)"\s*$/gm;

/** One script ready to define on a client. */
export interface StoreScript {
  /** The file's name without `-<numkeys>.lua` (`set-status`). */
  name: string;
  /** The ioredis command it is defined as (`bbSetStatus`). */
  command: string;
  /** Fixed key count, or undefined: the caller passes it as the first argument. */
  numberOfKeys: number | undefined;
  /** The script with its includes resolved. */
  lua: string;
  /** Its SHA-1 (`EVALSHA`). */
  sha: string;
}

let loaded: readonly StoreScript[] | undefined;

/** The scripts, read from disk once (at first use, never at import). */
export function storeScripts(): readonly StoreScript[] {
  if (loaded === undefined) {
    loaded = readdirSync(LUA_DIR)
      .filter((f) => f.endsWith('.lua'))
      .sort()
      .map((file) => {
        const m = FILE.exec(file);
        if (!m) {
          throw new BullbeatError(`store scripts: ${join(LUA_DIR, file)}: not named <name>-<numkeys>.lua`);
        }
        const name = m[1] as string;
        return {
          name,
          command: commandName(name),
          numberOfKeys: m[2] === 'n' ? undefined : Number(m[2]),
          ...luaScript(resolveIncludes(join(LUA_DIR, file), new Set())),
        };
      });
  }
  return loaded;
}

let byFile: ReadonlyMap<string, StoreScript> | undefined;

/** The script of a file, named without `.lua` (`claim-6`, `complete-n`). */
export function storeScript(file: string): StoreScript {
  byFile ??= new Map(storeScripts().map((s) => [`${s.name}-${s.numberOfKeys ?? 'n'}`, s] as const));
  const s = byFile.get(file);
  if (s === undefined) throw new BullbeatError(`store scripts: no script ${file}.lua in ${LUA_DIR}`);
  return s;
}

/** `set-status` → `bbSetStatus`. */
export function commandName(name: string): string {
  return `bb${name.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase())}`;
}

function resolveIncludes(path: string, seen: Set<string>): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new BullbeatError(`store scripts: cannot read ${path}`, { cause });
  }
  return text.replace(INCLUDE, (_line, target: string) => {
    const included = join(dirname(path), `${target}.lua`);
    if (seen.has(included)) return `-- (${target}: included above)`;
    seen.add(included);
    try {
      return resolveIncludes(included, seen);
    } catch (cause) {
      const where = relative(LUA_DIR, path);
      throw new BullbeatError(`store scripts: ${where}: --- @include "${target}": cannot read ${included}`, {
        cause,
      });
    }
  });
}

const defined = new WeakSet<Redis>();

/** Define every store script on `redis`, once per client (a second call is a no-op). */
export function defineStoreScripts(redis: Redis): void {
  if (defined.has(redis)) return;
  for (const s of storeScripts()) {
    redis.defineCommand(
      s.command,
      s.numberOfKeys === undefined ? { lua: s.lua } : { numberOfKeys: s.numberOfKeys, lua: s.lua },
    );
  }
  defined.add(redis);
}
