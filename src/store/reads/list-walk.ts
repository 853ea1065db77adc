import type { Redis } from 'ioredis';
import type { Keys } from '../keys/index.js';
import { ScheduleScripts } from '../scripts/index.js';

/**
 * A walk of one partition's list indexes merged into one order (includes/names): the queue indexes are
 * the only index of every schedule (each schedule is in exactly one), so the list of all of them, by
 * name then id, is a k-way merge of the partition's queues (k from its set of queues); a filter by queue
 * or by status walks one index, a merge of one.
 *
 * Each index (a lane) is read `ZRANGE ... BYLEX ... LIMIT` in chunks, one pipeline per round. A take of
 * `n` members reads each lane's next chunk until no lane can hold a member before the `n`-th of those
 * read (every lane's last member read is at or after it, or the lane is read to its end), then hands
 * them out in order. A lane's chunk starts at its share of the take (about `2n / k`, so a thousand queues
 * read one member each for a page of fifty) and doubles with each read, up to `LANE_STEP_MAX`: a walk of
 * every member reads each lane in a few growing chunks, a first page reads little more than the page.
 * The walk of every queue of a partition (`ofQueues`) makes its first read, each queue's share, in one
 * `list-heads-1` call instead of a command per queue.
 *
 * The merge compares members natively while they hold no UTF-16 unit from U+D800 on (there JavaScript's
 * order is Redis's byte order), and by `compareMembers` once one does.
 */

/** The most members one read of one lane asks for. */
export const LANE_STEP_MAX = 1000;

/** Redis's order of members: their UTF-8 bytes, compared without encoding them. */
export function compareMembers(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 units order as UTF-8 bytes but for surrogates (code points past U+FFFF), which UTF-8 puts
    // after U+E000..U+FFFF: move those past them
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** One index a walk merges: its key, and the tag its members are handed out with (its queue, if one). */
export interface WalkLane {
  key: string;
  tag: string | undefined;
}

/** What a take hands out: members in order, each with its lane's tag. */
export interface WalkTake {
  members: string[];
  tags: (string | undefined)[];
  /** Every lane is read to its end and handed out: no member follows. */
  done: boolean;
}

interface Lane extends WalkLane {
  buf: string[];
  pos: number;
  /** Where its next read starts: `(` and its last member read, or the walk's start. */
  from: string;
  /** Its last read returned fewer than asked: nothing is left to read. */
  ended: boolean;
  /** Its last member read ('' before its first read). */
  last: string;
  chunk: number;
}

/** Members in Redis's order, natively where that is the same (no UTF-16 unit from U+D800 on). */
type Order = (a: string, b: string) => number;
const nativeOrder: Order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const OUTSIDE_NATIVE = /[\ud800-\uffff]/;

/**
 * The first `n` members of the lanes' unread ones, merged (nothing handed out): the lanes' indexes in
 * order, and the last of those members. A binary heap of lane indexes by their next member, over a copy
 * of their positions.
 */
function mergeOrder(
  lanes: readonly Lane[],
  n: number,
  order: Order,
): { order: number[]; last: string | undefined } {
  const open = lanes.flatMap((l, i) => (l.pos < l.buf.length ? [i] : []));
  if (open.length === 1) {
    // one lane holds what is read (one queue, or the others read to their end): its members in order
    const i = open[0]!;
    const lane = lanes[i]!;
    const m = Math.min(n, lane.buf.length - lane.pos);
    return { order: new Array<number>(m).fill(i), last: lane.buf[lane.pos + m - 1] };
  }
  const pos = Int32Array.from(lanes, (l) => l.pos);
  const heap: number[] = [];
  const head = (i: number) => lanes[i]!.buf[pos[i]!]!;
  const less = (a: number, b: number) => order(head(a), head(b)) < 0;
  const up = (at: number) => {
    let i = at;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const down = () => {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && less(heap[l]!, heap[min]!)) min = l;
      if (r < heap.length && less(heap[r]!, heap[min]!)) min = r;
      if (min === i) return;
      [heap[i], heap[min]] = [heap[min]!, heap[i]!];
      i = min;
    }
  };
  lanes.forEach((l, i) => {
    if (l.pos < l.buf.length) {
      heap.push(i);
      up(heap.length - 1);
    }
  });
  const out: number[] = [];
  let last: string | undefined;
  while (out.length < n && heap.length > 0) {
    const top = heap[0]!;
    out.push(top);
    last = head(top);
    pos[top]! += 1;
    if (pos[top]! >= lanes[top]!.buf.length) {
      const last = heap.pop()!;
      if (heap.length === 0) continue;
      heap[0] = last;
    }
    down();
  }
  return { order: out, last };
}

/** A walk from `from` (`-`: the start; `(<member>`: after that member) over the lanes merged. */
export class ListWalk {
  readonly #redis: Redis;
  readonly #lanes: Lane[];
  #read = 0;
  #firstTake = true;
  #order: Order = nativeOrder;
  /** The last member handed out ('' none yet). */
  #lastOut = '';

  /** Every queue index of this partition, read first by `list-heads-1` (the lanes unknown until then). */
  #queuesOf: { k: Keys; from: string } | undefined;

  constructor(redis: Redis, lanes: readonly WalkLane[], from = '-') {
    this.#redis = redis;
    this.#lanes = lanes.map((l) => ({ ...l, buf: [], pos: 0, from, ended: false, last: '', chunk: 0 }));
  }

  /**
   * The walk of every queue index of partition `k` (every schedule of it, by name): its first read is one
   * `list-heads-1` (each queue's share of the first take, in one call), then as any walk.
   */
  static ofQueues(redis: Redis, k: Keys, from = '-'): ListWalk {
    const walk = new ListWalk(redis, [], from);
    walk.#queuesOf = { k, from };
    return walk;
  }

  /** The first read of a walk of every queue index: each one's share of the first take, in one call. */
  async #readHeads(k: Keys, from: string, n: number): Promise<void> {
    const { share, heads } = await new ScheduleScripts(this.#redis).listHeads(k, from, n);
    for (const { queue, members } of heads) {
      this.#read += members.length;
      this.#noteOrder(members);
      const last = members.at(-1) ?? '';
      this.#lanes.push({
        key: k.queueNames(queue),
        tag: queue,
        buf: members,
        pos: 0,
        from: last === '' ? from : `(${last}`,
        ended: members.length < share,
        last,
        chunk: Math.min(share * 2, LANE_STEP_MAX),
      });
    }
  }

  /** Members outside what `nativeOrder` orders as Redis does: compared by `compareMembers` from now on. */
  #noteOrder(members: readonly string[]): void {
    if (this.#order === nativeOrder && members.some((m) => OUTSIDE_NATIVE.test(m)))
      this.#order = compareMembers;
  }

  /** How many index members the walk has read. */
  get read(): number {
    return this.#read;
  }

  /** The next `n` members in order (fewer at the end, or when one was in two lanes: see `done`). */
  async take(n: number): Promise<WalkTake> {
    if (this.#queuesOf !== undefined) {
      const { k, from } = this.#queuesOf;
      this.#queuesOf = undefined;
      this.#firstTake = false;
      await this.#readHeads(k, from, n);
    }
    if (this.#firstTake) {
      this.#firstTake = false;
      const share = this.#lanes.length === 1 ? n : Math.ceil((2 * n) / Math.max(1, this.#lanes.length));
      for (const l of this.#lanes) l.chunk = Math.max(1, Math.min(share, LANE_STEP_MAX));
    }
    for (;;) {
      const { order, last } = mergeOrder(this.#lanes, n, this.#order);
      const bound = order.length === n ? last : undefined;
      // a lane not read to its end may hold members before the n-th read so far (all of them, when
      // fewer than n are read): it reads its next chunk
      const short = this.#lanes.filter(
        (l) => !l.ended && (bound === undefined || l.last === '' || this.#order(l.last, bound) < 0),
      );
      if (short.length === 0) return this.#handOut(order);
      await this.#readChunks(short, n - order.length);
    }
  }

  #handOut(order: readonly number[]): WalkTake {
    const members: string[] = [];
    const tags: (string | undefined)[] = [];
    for (const i of order) {
      const lane = this.#lanes[i]!;
      const member = lane.buf[lane.pos]!;
      lane.pos += 1;
      // one member in two lanes (a queue index an index repair is moving it out of, between its steps)
      // is handed out once
      if (member === this.#lastOut) continue;
      members.push(member);
      tags.push(lane.tag);
      this.#lastOut = member;
    }
    for (const l of this.#lanes) {
      if (l.pos > 0) {
        l.buf = l.buf.slice(l.pos);
        l.pos = 0;
      }
    }
    const done = this.#lanes.every((l) => l.ended && l.buf.length === 0);
    return { members, tags, done };
  }

  /** One pipeline: each lane's next chunk (at least its share of `missing`), its chunk then doubled. */
  async #readChunks(lanes: readonly Lane[], missing: number): Promise<void> {
    const share = Math.ceil(Math.max(1, missing) / lanes.length);
    const asks = lanes.map((l) =>
      Math.max(l.chunk, lanes.length === 1 ? missing : Math.min(share, LANE_STEP_MAX)),
    );
    const pipe = this.#redis.pipeline();
    lanes.forEach((l, i) => {
      pipe.zrangebylex(l.key, l.from, '+', 'LIMIT', 0, asks[i]!);
    });
    const res = (await pipe.exec()) ?? [];
    lanes.forEach((l, i) => {
      const [err, value] = res[i] ?? [null, []];
      if (err) throw err;
      const got = (value ?? []) as string[];
      this.#read += got.length;
      this.#noteOrder(got);
      if (got.length > 0) {
        l.buf.push(...got);
        l.last = got.at(-1)!;
        l.from = `(${l.last}`;
      }
      if (got.length < asks[i]!) l.ended = true;
      l.chunk = Math.min(l.chunk * 2, LANE_STEP_MAX);
    });
  }
}
