import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { keys } from '../../src/store/keys/keys.js';
import { LeaseScripts } from '../../src/store/scripts/lease-scripts.js';
import { LedgerScripts } from '../../src/store/scripts/ledger-scripts.js';
import { RunPathScripts } from '../../src/store/scripts/run-path-scripts.js';
import { ScheduleScripts } from '../../src/store/scripts/schedule-scripts.js';
import type { ScriptLayout } from '../../src/store/scripts/script-layout.js';
import { storeScripts } from '../../src/store/scripts/scripts.js';

/** One script call a `FakeScriptClient` took: the command and its arguments. */
export interface TakenCall {
  command: string;
  args: (string | number)[];
}

/**
 * A stand-in for an ioredis client that only takes store script calls (no Redis): it records each
 * call and answers what `answer` gives for its command.
 */
export function fakeScriptClient(answer: (command: string, args: (string | number)[]) => unknown = () => 1): {
  redis: Redis;
  calls: TakenCall[];
} {
  const calls: TakenCall[] = [];
  // store scripts are sent as EVALSHA (send-script.ts): taken back to the command and the arguments
  // it was called with (a fixed key count is not among them, as with a command ioredis defines); sent,
  // every argument is a string: a number's is read back as the number
  const bySha = new Map(storeScripts().map((s) => [s.sha, s]));
  const target: Record<string, unknown> = {
    defineCommand: () => undefined,
    sendCommand: async (c: { name: string; args: (string | number)[] }) => {
      const s = c.name === 'evalsha' ? bySha.get(String(c.args[0])) : undefined;
      if (!s)
        throw new Error(
          `fake script client: ${c.name} ${String(c.args[0]).slice(0, 40)} is not a store script`,
        );
      const args = c.args
        .slice(s.numberOfKeys === undefined ? 1 : 2)
        .map((a) => (typeof a === 'string' && /^-?(0|[1-9]\d*)$/.test(a) ? Number(a) : a));
      calls.push({ command: s.command, args });
      return answer(s.command, args);
    },
  };
  const redis = new Proxy(target, {
    get(t, name) {
      if (typeof name === 'string' && name.startsWith('bb')) {
        return async (...args: (string | number)[]) => {
          calls.push({ command: name, args });
          return answer(name, args);
        };
      }
      return t[name as string];
    },
  }) as unknown as Redis;
  return { redis, calls };
}

/** A call's arguments by slot name, read back through its layout (what the script sees where). */
export function bySlot(
  l: ScriptLayout,
  args: readonly (string | number)[],
): {
  keys: Record<string, string | number>;
  argv: Record<string, string | number>;
  rest: (string | number)[];
} {
  let i = l.itemKeys.length > 0 ? 1 : 0;
  const keys: Record<string, string | number> = {};
  for (const name of l.keys) keys[name] = args[i++]!;
  if (l.itemKeys.length > 0) i = 1 + Number(args[0]);
  const argv: Record<string, string | number> = {};
  for (const name of l.argv) if (i < args.length) argv[name] = args[i++]!;
  return { keys, argv, rest: args.slice(i) };
}

// A partition's keys, and audit arguments, for the marshaller's tests.
export const k = keys('t');
export const B = '{t}:bb';
export const AUDIT = {
  audit: { limit: 7, retentionMs: 99 },
  by: { actor: 'ann', source: 'cli', onBehalfOf: 'bob' },
} as const;
export const AUDIT_SLOTS = { auditLimit: 7, auditActor: 'ann', auditSource: 'cli', auditOnBehalfOf: 'bob' };

/** The store's script callers over one client, by domain. */
export function scriptCallers(redis: Redis) {
  return {
    schedules: new ScheduleScripts(redis),
    runPath: new RunPathScripts(redis),
    ledger: new LedgerScripts(redis),
    leases: new LeaseScripts(redis),
  };
}

/** Call `use` on the script callers over a fake client answering `answer`; the one call's slots. */
export async function one(
  l: ScriptLayout,
  use: (s: ReturnType<typeof scriptCallers>) => Promise<unknown>,
  answer: unknown = 1,
) {
  const fake = fakeScriptClient(() => answer);
  const out = await use(scriptCallers(fake.redis));
  expect(fake.calls.map((c) => c.command)).toEqual([l.command]);
  return { out, ...bySlot(l, fake.calls[0]!.args) };
}
