import type { Redis } from 'ioredis';
import { ScheduleOptionsError } from '../../errors/index.js';
import type { Keys } from '../keys/index.js';
import { type ListCounts, ScheduleScripts } from '../scripts/index.js';
import { compareMembers, ListWalk } from './list-walk.js';

/**
 * The list by name, paged from the list indexes (includes/names: per partition, a sorted set of
 * `<name>\0<id>` per queue that `upsert-9` and `remove-13` keep with the definitions). A page merges each
 * partition's queue indexes (`ListWalk`: each one's share of the page in one `list-heads-1`, then what
 * the page still needs from each, in growing chunks) and then the partitions', so its cost is the
 * page's, the partitions' and the queues' count, never the schedules'.
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

/** `<name>\0<id>` split at its last NUL (an id holds none). */
function splitMember(member: string): { name: string; id: string } {
  const cut = member.lastIndexOf('\0');
  return { name: member.slice(0, cut), id: member.slice(cut + 1) };
}

/** Each partition's first `n` members after `from`, by name: a merge of its queue indexes. */
async function firstByName(redis: Redis, keys: Keys, from: string, n: number) {
  return Promise.all(
    keys.all().map(async (k) => {
      const walk = ListWalk.ofQueues(redis, k, from);
      const take = await walk.take(n);
      return { members: take.members, done: take.done, read: walk.read };
    }),
  );
}

/**
 * The page of `limit` schedules after `cursor` (`'0'`: the first) by name, then id. The indexes are
 * checked first (`checkListIndexes`), so schedules written by a writer that kept none are listed too.
 */
export async function namePage(redis: Redis, keys: Keys, cursor: string, limit: number): Promise<NamePage> {
  const after = parseNameCursor(cursor);
  await checkListIndexes(redis, keys);
  const parts = await firstByName(redis, keys, after === null ? '-' : `(${after}`, limit);
  const merged = parts.flatMap((p) => p.members).sort(compareMembers);
  const page = merged.slice(0, limit);
  const more = merged.length > limit || parts.some((p) => !p.done);
  const last = page.at(-1);
  const split = page.map(splitMember);
  return {
    ids: split.map((s) => s.id),
    names: split.map((s) => s.name),
    cursor: more && last !== undefined ? `n.${Buffer.from(last).toString('base64url')}` : undefined,
    read: parts.reduce((a, p) => a + p.read, 0),
  };
}

/**
 * The ids at `offset` .. `offset + limit` of the list by name (the first `offset + limit` members of each
 * partition merged: bounded by the page's end, not by the schedules' count).
 */
export async function namePageAt(
  redis: Redis,
  keys: Keys,
  offset: number,
  limit: number,
): Promise<Omit<NamePage, 'cursor'>> {
  await checkListIndexes(redis, keys);
  const parts = await firstByName(redis, keys, '-', offset + limit);
  const merged = parts.flatMap((p) => p.members).sort(compareMembers);
  const split = merged.slice(offset, offset + limit).map(splitMember);
  return {
    ids: split.map((s) => s.id),
    names: split.map((s) => s.name),
    read: parts.reduce((a, p) => a + p.read, 0),
  };
}

/** How many index members one repair step sends (`repair-index-3`). */
const REPAIR_STEP = 1000;

/** The first data format without `names`, the index of every schedule format 2 kept beside the queues'. */
const FORMAT_WITHOUT_NAMES = 3;

/**
 * Repair each partition whose queue indexes do not count its definitions (a writer that kept no index,
 * an earlier release, created or removed schedules), and index once each partition written before its
 * queue and status indexes existed (no `listidx` mark; a partition's first create sets it): every id is
 * indexed (queue, status, and group when it names one), then every member whose id is gone, renamed or
 * on another queue is dropped (`repair-index-3`, in steps), then the mark is set. Costs one
 * `list-counts-1` per partition when the indexes are right. Answers each partition's counts (after any
 * repair), in partition order.
 *
 * A `names` key found in a deployment of format 3 or later (rebuilt by a process of the previous release
 * still running through the upgrade, whose list reads repair it) is deleted.
 *
 * What the counts cannot see: a create and a removal by such a writer in the same partition between two
 * checks leave the counts equal; the removed one's entry is dropped when a page reads it, the created
 * one is listed after the next repair of its partition (docs/upgrading.md: deleting the partition's
 * `listidx` mark makes the next check index it again).
 */
export async function checkListIndexes(redis: Redis, keys: Keys): Promise<ListCounts[]> {
  const scripts = new ScheduleScripts(redis);
  let format: Promise<string | null> | undefined;
  return Promise.all(
    keys.all().map(async (k) => {
      const counts = await scripts.listCounts(k);
      if (counts.formerNames) {
        format ??= redis.get(keys.dataFormat);
        if (Number(await format) >= FORMAT_WITHOUT_NAMES) await redis.unlink(k.names);
      }
      if (counts.listed === counts.definitions && counts.marked) return counts;
      // nothing to index (a deployment not recorded yet: a read writes nothing; the first create marks it)
      if (counts.listed === 0 && counts.definitions === 0) return counts;
      await repairPartition(redis, scripts, k);
      if (!counts.marked) await redis.set(k.listsIndexed, '1');
      return scripts.listCounts(k);
    }),
  );
}

/** Every id of the partition indexed, then every member of its queue and status indexes checked. */
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
  const indexes = [
    ...(await redis.smembers(k.queues)).map((queue) => ({ key: k.queueNames(queue), entry: `q${queue}\0` })),
    ...(['paused', 'completed', 'errored'] as const).map((s) => ({ key: k.statusNames(s), entry: 'm' })),
  ];
  for (const { key, entry } of indexes) {
    cursor = '0';
    do {
      const [next, flat] = await redis.zscan(key, cursor, 'COUNT', REPAIR_STEP);
      cursor = next;
      const members = flat.filter((_, i) => i % 2 === 0);
      if (members.length > 0)
        changed += await scripts.repairIndex(
          k,
          members.map((m) => `${entry}${m}`),
        );
    } while (cursor !== '0');
  }
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
