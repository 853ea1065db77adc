import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { counted, patchArgs } from '../../src/store/forms/record-form.js';
import { type Keys, keys } from '../../src/store/keys/keys.js';
import { runScript, type ScriptLayout } from '../../src/store/scripts/script-layout.js';
import { defineStoreScripts } from '../../src/store/scripts/scripts.js';
import { REDIS } from '../redis-url.js';

/** A fresh key prefix and a client for one store test; `cleanup()` deletes every key under it. */
export class StoreBed {
  readonly prefix = `bbstore-${randomUUID().slice(0, 8)}`;
  readonly redis = new Redis(REDIS);
  readonly k: Keys = keys(this.prefix);

  /** Redis TIME in ms. */
  async now(): Promise<number> {
    const [s, us] = await this.redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  async cleanup(): Promise<void> {
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', `${this.k.base}*`, 'COUNT', 1000);
      cursor = next;
      if (batch.length > 0) await this.redis.unlink(...batch);
    } while (cursor !== '0');
    await this.redis.quit();
  }
}

/** The state row as today's release writes it: `status|fired|lastFire|createdAt|fingerprint|source`. */
export function row(
  status: string,
  fired = 0,
  last: number | '' = '',
  created = 1000,
  fp = 'fp',
  source = 'r',
) {
  return `${status}|${fired}|${last}|${created}|${fp}|${source}`;
}

/**
 * Call a store script by hand, its KEYS and ARGV exactly as given (a script's own test, edge cases the
 * marshaller never sends included); its raw answer, which each test reads as the script's header says.
 */
// biome-ignore lint/suspicious/noExplicitAny: a script's raw answer
export function callScript(bed: StoreBed, l: ScriptLayout, ...args: (string | number)[]): Promise<any> {
  defineStoreScripts(bed.redis);
  return runScript(bed.redis, l, args);
}

/** Call a store script by hand: its keys for a schedule store (the order of each script's header). */
export function scheduleScriptKeys(k: Keys) {
  // the audit trail's key: these tests pass no audit ARGV (limit absent: nothing is written to it)
  const audit = k.audit('_');
  return {
    // the counters of the tests' schedule `s`
    upsert: [k.schedules, k.due, k.inflight, k.state, k.resched, k.completed, k.claim, audit, k.counts('s')],
    claim: [k.due, k.inflight, k.claim, k.schedules, k.state, k.totals],
    setStatus: [k.state, k.due, k.inflight, k.resched, k.claim, audit],
    complete: (ids: string[]) => [
      7 + 3 * ids.length,
      k.due,
      k.inflight,
      k.claim,
      k.state,
      k.resched,
      k.completed,
      k.totals,
      ...ids.flatMap((id) => [k.runs(id), k.runIndex(id), k.counts(id)]),
    ],
    markErrored: [k.state, k.due, k.inflight, k.claim, k.resched, k.completed, k.errors, k.totals, audit],
    clearError: [k.state, k.due, k.inflight, k.completed, k.errors, audit],
    remove: (id: string) => [
      k.schedules,
      k.due,
      k.inflight,
      k.claim,
      k.state,
      k.resched,
      k.completed,
      k.runs(id),
      k.runIndex(id),
      k.counts(id),
      k.errors,
      k.totals,
      k.audit(id),
    ],
  };
}

/** One completion item's arguments (complete-n.lua); records as `[field, score, patch, counter]`. */
export function item(
  id: string,
  fireAt: number,
  next: number | -1,
  o: {
    enqueued?: object;
    records?: [string, string, object, string][];
    missed?: number;
    coalesced?: number;
    /** The occurrence enqueued, when not the claimed one (a claim a period late). */
    ran?: number;
  } = {},
): (string | number)[] {
  const enq = o.enqueued ? patchArgs(o.enqueued as Record<string, unknown>).set : [];
  const out: (string | number)[] = [
    id,
    fireAt,
    next,
    o.missed ?? 0,
    o.coalesced ?? 0,
    o.ran ?? fireAt,
    ...counted(enq),
  ];
  out.push(o.records?.length ?? 0);
  for (const [field, score, patch, counter] of o.records ?? []) {
    out.push(field, score, counter, ...counted(patchArgs(patch as Record<string, unknown>).set));
  }
  return out;
}

/** One occurrence's record hash as stored (`rec:<id>:<field>`: every fact a string). */
export function storedRecord(bed: StoreBed, id: string, field: string): Promise<Record<string, string>> {
  return bed.redis.hgetall(bed.k.record(id, field));
}
