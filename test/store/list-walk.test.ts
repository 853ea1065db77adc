// The walks of list indexes (list-walk.ts): members compared as Redis compares them (UTF-8 bytes, as the
// partitions' pages are merged), checked against `Buffer.compare` over names mixing ASCII, accents,
// U+E000..U+FFFF and characters past U+FFFF (where UTF-16 order and UTF-8 order differ); the merge of a
// partition's queue indexes (`list-merge-1`), taken in steps of several sizes over 1 to 300 queues,
// hands out every member once, in Redis's order, with its queue, and says when it is done; a walk from
// a member starts after it; one index alone walks the same way.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { keys as keysOf } from '../../src/store/keys/keys.js';
import { compareMembers, indexWalk, type ListWalk, mergedWalk } from '../../src/store/reads/list-walk.js';
import { REDIS_URL } from '../redis-url.js';

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const sign = (n: number) => Math.sign(n);

const PIECES = ['a', 'b', 'Z', 'é', '\u00ff', '\ue000', '\uffee', '😀', '𝄞', '\0', '-', '0'];
function randomName(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 5);
  return Array.from({ length: n }, () => PIECES[Math.floor(rnd() * PIECES.length)]).join('');
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const redis = new Redis(REDIS_URL);
const prefix = `t-walk-${randomUUID().slice(0, 8)}`;
afterAll(async () => {
  const found = await redis.keys(`{${prefix}*`);
  if (found.length > 0) await redis.del(...found);
  await redis.quit();
});

describe('list walk', () => {
  it("compares members in UTF-8 byte order, as Redis's ZRANGE BYLEX does", () => {
    const rnd = rng(7);
    for (let i = 0; i < 5000; i++) {
      const a = randomName(rnd);
      const b = randomName(rnd);
      expect(sign(compareMembers(a, b)), `${a} ${b}`).toBe(sign(byBytes(a, b)));
    }
  });

  /** Every member handed out by `walk` in steps of `step`, with its queue. */
  async function walkAll(walk: ListWalk, step: number) {
    const got: { member: string; queue: string | undefined }[] = [];
    for (;;) {
      const take = await walk.take(step);
      take.members.forEach((member, i) => got.push({ member, queue: take.queues[i] }));
      if (take.done) return got;
      expect(take.members.length).toBe(step);
    }
  }

  for (const [queues, perQueue, steps] of [
    [1, 300, [7, 50, 1000]],
    [5, 200, [1, 3, 64]],
    [60, 20, [10, 100, 333]],
    [300, 4, [7, 50, 1000]],
  ] as const) {
    it(`${queues} queue index(es) of ${perQueue}: merged, every member once, in Redis's order, with its queue, in steps of ${steps.join(', ')}`, async () => {
      const rnd = rng(queues);
      const k = keysOf(`${prefix}-${queues}`);
      const all: { member: string; queue: string }[] = [];
      for (let i = 0; i < queues; i++) {
        const members = new Set<string>();
        while (members.size < perQueue) members.add(`${randomName(rnd)}\0id-${i}-${members.size}`);
        await redis.zadd(k.queueNames(`q${i}`), ...[...members].flatMap((m) => ['0', m]));
        await redis.sadd(k.queues, `q${i}`);
        for (const member of members) all.push({ member, queue: `q${i}` });
      }
      all.sort((x, y) => byBytes(x.member, y.member));
      // Redis's own order of one index is the order compared here
      const one = await redis.zrangebylex(k.queueNames('q0'), '-', '+');
      expect(one).toEqual([...one].sort(byBytes));

      for (const step of steps) expect(await walkAll(mergedWalk(redis, k), step)).toEqual(all);
      // from a member on: the rest, after it
      const at = Math.floor(all.length / 3);
      const rest = await mergedWalk(redis, k, `(${all[at]!.member}`).take(all.length);
      expect(rest.done).toBe(true);
      expect(rest.members).toEqual(all.slice(at + 1).map((x) => x.member));
      // one index alone
      const q0 = all.filter((x) => x.queue === 'q0');
      expect(await walkAll(indexWalk(redis, k.queueNames('q0'), 'q0'), 7)).toEqual(q0);
      // the merge's scratch set is gone
      expect(await redis.exists(`${k.base}:listmerge`)).toBe(0);
    });
  }

  it('an empty partition: nothing, done', async () => {
    const k = keysOf(`${prefix}-empty`);
    expect(await mergedWalk(redis, k).take(10)).toEqual({ members: [], queues: [], done: true });
  });
});
