import type { Redis } from 'ioredis';
import { BullbeatError } from '../../errors/bullbeat-error.js';
import { type LuaScript, sendScript, usesKeyPrefix } from '../connection/index.js';
import { commandName, defineStoreScripts, storeScript } from './scripts.js';

/** One value given to a script: a string or a number, or a run of them (a counted patch, a list). */
export type ScriptValue = string | number | readonly (string | number)[];

/**
 * The order of one script's `KEYS` and `ARGV`, slot by slot, named as the script file's header names
 * them (`test/store/script-layouts.test.ts` reads every header against its layout). The script
 * callers fill slots by name; only `scriptArgs` puts them in order.
 */
export interface ScriptLayout<
  K extends string = string,
  A extends string = string,
  I extends string = string,
  IK extends string = string,
> {
  /** The file's name without `.lua` (`upsert-9`, `complete-n`). */
  readonly file: string;
  /** The ioredis command the script is defined as (`bbUpsert`). */
  readonly command: string;
  readonly keys: readonly K[];
  /** The fixed ARGV. A slot given `undefined` at the end is left out (an optional tail). */
  readonly argv: readonly A[];
  /** What follows the fixed ARGV, repeated: each item's values, in order. */
  readonly item: readonly I[];
  /** A `-n` script's own KEYS per item, after the fixed ones (the caller passes numkeys first). */
  readonly itemKeys: readonly IK[];
}

/** A layout; `file` names its script (`<name>-<numkeys>`). */
export function layout<
  const K extends string,
  const A extends string,
  const I extends string = never,
  const IK extends string = never,
>(
  file: string,
  keys: readonly K[],
  argv: readonly A[],
  more: { item?: readonly I[]; itemKeys?: readonly IK[] } = {},
): ScriptLayout<K, A, I, IK> {
  return {
    file,
    command: commandName(file.replace(/-(\d+|n)$/, '')),
    keys,
    argv,
    item: more.item ?? [],
    itemKeys: more.itemKeys ?? [],
  };
}

type Slots<N extends string> = { readonly [P in N]: ScriptValue };
type MaybeSlots<N extends string> = { readonly [P in N]: ScriptValue | undefined };

/** One item of a repeated tail: its values, and its own keys on a `-n` script. */
export interface ScriptItem<I extends string, IK extends string> {
  keys?: Slots<IK>;
  values: Slots<I>;
}

/**
 * A call's arguments in the script's order: (numkeys on a `-n` script), the keys, each item's own keys,
 * the fixed ARGV, then each item's values.
 */
export function scriptArgs<K extends string, A extends string, I extends string, IK extends string>(
  l: ScriptLayout<K, A, I, IK>,
  keys: Slots<K>,
  argv: MaybeSlots<A>,
  items: readonly ScriptItem<I, IK>[] = [],
): (string | number)[] {
  const out: (string | number)[] = [];
  if (l.itemKeys.length > 0) out.push(l.keys.length + l.itemKeys.length * items.length);
  for (const name of l.keys) push(out, keys[name]);
  if (l.itemKeys.length > 0) {
    for (const it of items) {
      if (!it.keys) throw new BullbeatError(`store script ${l.file}: an item without its keys`);
      for (const name of l.itemKeys) push(out, it.keys[name]);
    }
  }
  let last = l.argv.length;
  while (last > 0 && argv[l.argv[last - 1]!] === undefined) last--;
  for (let i = 0; i < last; i++) {
    const v = argv[l.argv[i]!];
    if (v === undefined) throw new BullbeatError(`store script ${l.file}: ARGV "${l.argv[i]}" missing`);
    push(out, v);
  }
  for (const it of items) out.push(...itemArgs(l, it.values));
  return out;
}

/** One item's values in the script's order (a batched call's share of the ARGV). */
export function itemArgs<I extends string>(
  l: ScriptLayout<string, string, I, string>,
  values: Slots<I>,
): (string | number)[] {
  const out: (string | number)[] = [];
  for (const name of l.item) push(out, values[name]);
  return out;
}

function push(out: (string | number)[], v: ScriptValue): void {
  if (typeof v === 'string' || typeof v === 'number') out.push(v);
  else for (const x of v) out.push(x);
}

type ScriptCommand = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Send a call (its arguments from `scriptArgs`) on `redis` (`sendScript`: `EVALSHA`, without the copies
 * of a command defined with ioredis's `defineCommand`), of the script's text as defined on the client
 * (`defineStoreScripts`). A client with ioredis's `keyPrefix` goes through the defined command, which
 * prefixes the keys.
 */
export function runScript(
  redis: Redis,
  l: ScriptLayout,
  args: readonly (string | number)[],
): Promise<unknown> {
  defineStoreScripts(redis);
  if (usesKeyPrefix(redis)) {
    const command = (redis as unknown as Record<string, ScriptCommand>)[l.command];
    if (typeof command !== 'function')
      throw new BullbeatError(`store script ${l.file}: not defined on the client`);
    return command.apply(redis, [...args]);
  }
  const stored = storeScript(l.file);
  const { numberOfKeys } = stored;
  // the text defined on the client under the script's command: the store's, unless a test defined its own
  // there (manual-time.ts: its clock for TIME)
  const defined = (redis as unknown as { scriptsSet?: Record<string, LuaScript | undefined> }).scriptsSet;
  const script = defined?.[l.command] ?? stored;
  if (numberOfKeys === undefined) return sendScript(redis, script, args);
  const all: (string | number)[] = new Array(args.length + 1);
  all[0] = numberOfKeys;
  for (let i = 0; i < args.length; i++) all[i + 1] = args[i]!;
  return sendScript(redis, script, all);
}

/** A script answered what its header does not name (a script and its decoder out of step). */
export function unexpected(l: ScriptLayout, answer: unknown): BullbeatError {
  return new BullbeatError(`store script ${l.file}: unexpected answer ${JSON.stringify(answer)}`);
}

/** The clocks tests set on a client (`setScriptClock`), each for some scripts or all; production sets none. */
const scriptClocks = new WeakMap<Redis, { now: () => number; files: ReadonlySet<string> | undefined }>();

/**
 * Tests only: the time (epoch ms) that the scripts with a `clock ms` ARGV (the claim and lease scripts
 * `claim-6`, `renew-claims-2`, `renew-lease-1`, `renew-run-2`, `try-group-4`, and the alert outbox's
 * `outbox-take-2`) judge due times and expiries by on `redis`, in place of Redis TIME, so a test drives
 * claims, leases and delivery retries without sleeping. `files` (`['outbox-take-2']`): those scripts
 * only; the others on the client keep Redis TIME. `undefined` puts Redis TIME back. Production never
 * sets one: those scripts then read Redis TIME.
 */
export function setScriptClock(
  redis: Redis,
  now: (() => number) | undefined,
  files?: readonly string[],
): void {
  if (now === undefined) scriptClocks.delete(redis);
  else scriptClocks.set(redis, { now, files: files === undefined ? undefined : new Set(files) });
}

/** What every script caller stands on: a client, and a call of a script on it. */
export class ScriptCaller {
  constructor(readonly redis: Redis) {
    defineStoreScripts(redis);
  }

  /** The time a test set for script `l` on this client (`setScriptClock`); undefined: Redis TIME. */
  clockMs(l: ScriptLayout): number | undefined {
    const clock = scriptClocks.get(this.redis);
    if (clock === undefined || (clock.files !== undefined && !clock.files.has(l.file))) return undefined;
    return Math.floor(clock.now());
  }

  run(l: ScriptLayout, args: readonly (string | number)[]): Promise<unknown> {
    return runScript(this.redis, l, args);
  }
}
