import type { Redis } from 'ioredis';
import { ScheduleOptionsError } from '../../errors/index.js';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/**
 * The list by name, paged from the name index (includes/names: per partition, a sorted set of
 * `<name>\0<id>` that `upsert-9` and `remove-13` keep with the definitions). A page reads at most `limit`
 * members of each partition (`ZRANGE ... BYLEX ... LIMIT`) and merges them, so its cost is the page's and
 * the partitions' count, never the schedules' (a page of 100 out of a million on one Redis reads 100).
 */

/** One page of the walk by name. */
export interface NamePage {
  /** The ids of the page, by name then id (UTF-8 byte order, as Redis compares). */
  ids: string[];
  /** Each id's name, as the index holds it (a read that finds another name repairs the index). */
  names: string[];
  /** Where the next page starts; undefined when the walk is over. */
  cursor: string | undefined;
  /** How many index members the page read (over every partition). */
  read: number;
}

/** A by-name cursor: `n.` and the page's last member, base64url. */
const NAME_CURSOR = /^n\.([A-Za-z0-9_-]+)$/;

function parseNameCursor(text: string): string | null {
  if (text === '0') return null;
  const m = NAME_CURSOR.exec(text);
  if (!m) {
    throw new ScheduleOptionsError(
      undefined,
      'cursor',
      `"${text}" is not a by-name list cursor: start with "0", then pass the cursor the previous page answered`,
    );
  }
  return Buffer.from(m[1]!, 'base64url').toString('utf8');
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** `<name>\0<id>` split at its last NUL (an id holds none). */
function splitMember(member: string): { name: string; id: string } {
  const cut = member.lastIndexOf('\0');
  return { name: member.slice(0, cut), id: member.slice(cut + 1) };
}

/**
 * The page of `limit` schedules after `cursor` (`'0'`: the first) by name, then id. The index is checked
 * first (`checkNameIndex`), so schedules written by a writer that kept no index are listed too.
 */
export async function namePage(redis: Redis, keys: Keys, cursor: string, limit: number): Promise<NamePage> {
  const after = parseNameCursor(cursor);
  await checkNameIndex(redis, keys);
  const from = after === null ? '-' : `(${after}`;
  const parts = await Promise.all(
    keys.all().map((k) => redis.zrangebylex(k.names, from, '+', 'LIMIT', 0, limit)),
  );
  const merged = parts.flat().sort(byBytes);
  const page = merged.slice(0, limit);
  const more = merged.length > limit || parts.some((p) => p.length === limit);
  const last = page.at(-1);
  const split = page.map(splitMember);
  return {
    ids: split.map((s) => s.id),
    names: split.map((s) => s.name),
    cursor: more && last !== undefined ? `n.${Buffer.from(last).toString('base64url')}` : undefined,
    read: merged.length,
  };
}

/**
 * The ids at `offset` .. `offset + limit` of the list by name (the first `offset + limit` members of each
 * partition read and merged: bounded by the page's end, not by the schedules' count).
 */
export async function namePageAt(
  redis: Redis,
  keys: Keys,
  offset: number,
  limit: number,
): Promise<Omit<NamePage, 'cursor'>> {
  await checkNameIndex(redis, keys);
  const parts = await Promise.all(
    keys.all().map((k) => redis.zrangebylex(k.names, '-', '+', 'LIMIT', 0, offset + limit)),
  );
  const merged = parts.flat().sort(byBytes);
  const split = merged.slice(offset, offset + limit).map(splitMember);
  return { ids: split.map((s) => s.id), names: split.map((s) => s.name), read: merged.length };
}

/** How many index members one repair step sends (`repair-index-3`). */
const REPAIR_STEP = 1000;

/**
 * Repair each partition whose name index does not count its definitions (a writer that kept no index,
 * an earlier release, created or removed schedules), and index once each partition written before its
 * queue and status indexes existed (no `listidx` mark; a partition's first create sets it): every id is
 * indexed (name, queue, status, and group when it names one), then every member whose id is gone or
 * renamed is dropped (`repair-index-3`, in steps), then the mark is set. Costs two counts and a read of
 * the mark per partition when the indexes are right. Answers how many entries changed.
 *
 * What the counts cannot see: a create and a removal by such a writer in the same partition between two
 * checks leave the counts equal; the removed one's entry is dropped when a page reads it, the created
 * one is listed after the next repair of its partition (docs/upgrading.md: deleting the partition's
 * `listidx` mark makes the next check index it again).
 */
export async function checkNameIndex(redis: Redis, keys: Keys): Promise<number> {
  const scripts = new ScheduleScripts(redis);
  const changed = await Promise.all(
    keys.all().map(async (k) => {
      const res = (await redis.pipeline().zcard(k.names).hlen(k.schedules).get(k.listsIndexed).exec()) ?? [];
      const [members, defs, marked] = res.map((r) => r[1]);
      if (members === defs && marked !== null) return 0;
      // nothing to index (a deployment not recorded yet: a read writes nothing; the first create marks it)
      if (members === 0 && defs === 0) return 0;
      const n = await repairPartition(redis, scripts, k);
      if (marked === null) await redis.set(k.listsIndexed, '1');
      return n;
    }),
  );
  return changed.reduce((a, b) => a + b, 0);
}

async function repairPartition(redis: Redis, scripts: ScheduleScripts, k: Keys): Promise<number> {
  let changed = 0;
  let cursor = '0';
  do {
    const [next, flat] = await redis.hscan(k.schedules, cursor, 'COUNT', REPAIR_STEP);
    cursor = next;
    const ids = flat.filter((_, i) => i % 2 === 0);
    if (ids.length > 0)
      changed += await scripts.repairIndex(
        k,
        ids.map((id) => `i${id}`),
      );
  } while (cursor !== '0');
  cursor = '0';
  do {
    const [next, flat] = await redis.zscan(k.names, cursor, 'COUNT', REPAIR_STEP);
    cursor = next;
    const members = flat.filter((_, i) => i % 2 === 0);
    if (members.length > 0)
      changed += await scripts.repairIndex(
        k,
        members.map((m) => `m${m}`),
      );
  } while (cursor !== '0');
  return changed;
}

/**
 * Repair the index entries of schedules whose stored name is not the one the index gave them (renamed
 * by a writer that kept no index): each id with the name its index member holds.
 */
export async function repairNames(
  redis: Redis,
  keys: Keys,
  stale: readonly { id: string; indexedName: string }[],
): Promise<void> {
  if (stale.length === 0) return;
  const scripts = new ScheduleScripts(redis);
  await Promise.all(stale.map((s) => scripts.repairIndex(keys.of(s.id), [`m${s.indexedName}\0${s.id}`])));
}
