import type { Redis } from 'ioredis';

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
 * read one member each for a page of fifty) and doubles with each read, up to `STEP_MAX`: a walk of every
 * member reads each lane in a few growing chunks, a first page reads little more than the page.
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

/** A binary heap of lanes by their next member (the head of `buf` at `pos`). */
class LaneHeap {
  readonly #items: { lane: Lane; pos: number }[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(lane: Lane, pos: number): void {
    const items = this.#items;
    items.push({ lane, pos });
    let i = items.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (this.#less(items[up]!, items[i]!)) break;
      [items[up], items[i]] = [items[i]!, items[up]!];
      i = up;
    }
  }

  /** The smallest entry taken out (its lane and position). */
  pop(): { lane: Lane; pos: number } | undefined {
    const items = this.#items;
    const top = items[0];
    const end = items.pop();
    if (top === undefined || end === undefined || items.length === 0) return top;
    items[0] = end;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < items.length && this.#less(items[l]!, items[min]!)) min = l;
      if (r < items.length && this.#less(items[r]!, items[min]!)) min = r;
      if (min === i) break;
      [items[min], items[i]] = [items[i]!, items[min]!];
      i = min;
    }
    return top;
  }

  #less(a: { lane: Lane; pos: number }, b: { lane: Lane; pos: number }): boolean {
    return compareMembers(a.lane.buf[a.pos]!, b.lane.buf[b.pos]!) < 0;
  }
}

/** A walk from `from` (`-`: the start; `(<member>`: after that member) over the lanes merged. */
export class ListWalk {
  readonly #redis: Redis;
  readonly #lanes: Lane[];
  #read = 0;
  #firstTake = true;
  /** The last member handed out ('' none yet). */
  #lastOut = '';

  constructor(redis: Redis, lanes: readonly WalkLane[], from = '-') {
    this.#redis = redis;
    this.#lanes = lanes.map((l) => ({ ...l, buf: [], pos: 0, from, ended: false, last: '', chunk: 0 }));
  }

  /** How many index members the walk has read. */
  get read(): number {
    return this.#read;
  }

  /** The next `n` members in order (fewer at the end, or when one was in two lanes: see `done`). */
  async take(n: number): Promise<WalkTake> {
    if (this.#firstTake) {
      this.#firstTake = false;
      const share = this.#lanes.length === 1 ? n : Math.ceil((2 * n) / Math.max(1, this.#lanes.length));
      for (const l of this.#lanes) l.chunk = Math.max(1, Math.min(share, LANE_STEP_MAX));
    }
    for (;;) {
      const order = this.#firstInOrder(n);
      const bound = order.length === n ? order[n - 1]! : undefined;
      // a lane not read to its end may hold members before the n-th read so far (all of them, when
      // fewer than n are read): it reads its next chunk
      const short = this.#lanes.filter(
        (l) =>
          !l.ended &&
          (bound === undefined ||
            (l.pos >= l.buf.length && l.last === '') ||
            compareMembers(l.last, bound.lane.buf[bound.pos]!) < 0),
      );
      if (short.length === 0) return this.#handOut(order);
      await this.#readChunks(short, n - order.length);
    }
  }

  /** The first `n` unread members' places, in order, from what is read (nothing handed out). */
  #firstInOrder(n: number): { lane: Lane; pos: number }[] {
    const heap = new LaneHeap();
    for (const l of this.#lanes) if (l.pos < l.buf.length) heap.push(l, l.pos);
    const out: { lane: Lane; pos: number }[] = [];
    while (out.length < n && heap.size > 0) {
      const top = heap.pop()!;
      out.push(top);
      if (top.pos + 1 < top.lane.buf.length) heap.push(top.lane, top.pos + 1);
    }
    return out;
  }

  #handOut(order: readonly { lane: Lane; pos: number }[]): WalkTake {
    const members: string[] = [];
    const tags: (string | undefined)[] = [];
    for (const { lane, pos } of order) {
      const member = lane.buf[pos]!;
      lane.pos = pos + 1;
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
    const asks = lanes.map((l) => Math.max(l.chunk, lanes.length === 1 ? missing : Math.min(share, LANE_STEP_MAX)));
    const pipe = this.#redis.pipeline();
    lanes.forEach((l, i) => pipe.zrangebylex(l.key, l.from, '+', 'LIMIT', 0, asks[i]!));
    const res = (await pipe.exec()) ?? [];
    lanes.forEach((l, i) => {
      const [err, value] = res[i] ?? [null, []];
      if (err) throw err;
      const got = (value ?? []) as string[];
      this.#read += got.length;
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
