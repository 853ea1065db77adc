// The merge of list indexes (`ListWalk`, list-walk.ts): members compared as Redis compares them (UTF-8
// bytes), checked against `Buffer.compare` over names mixing ASCII, accents, U+E000..U+FFFF and
// characters past U+FFFF (where UTF-16 order and UTF-8 order differ); a walk over many sorted sets,
// taken in steps of several sizes, hands out every member once, in Redis's order, with its lane's tag,
// and says when it is done, whether given its lanes or reading a partition's queues itself (its first
// read one `list-heads-1`); a walk from a member starts after it.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { keys as keysOf } from '../../src/store/keys/keys.js';
import { compareMembers, ListWalk } from '../../src/store/reads/list-walk.js';
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

  for (const [lanes, perLane, steps] of [
    [1, 300, [7, 50, 1000]],
    [5, 200, [1, 3, 64]],
    [60, 20, [10, 100, 333]],
    [300, 4, [7, 50, 1000]],
  ] as const) {
    it(`${lanes} lane(s) of ${perLane}: every member once, in Redis's order, tagged, in steps of ${steps.join(', ')}`, async () => {
      const rnd = rng(lanes);
      // the lanes as a partition's queue indexes, for the walk of every queue of it too
      const k = keysOf(`${prefix}-${lanes}`);
      const keyOf = (i: number) => k.queueNames(`q${i}`);
      const all: { member: string; tag: string }[] = [];
      for (let i = 0; i < lanes; i++) {
        const members = new Set<string>();
        while (members.size < perLane) members.add(`${randomName(rnd)}\0id-${i}-${members.size}`);
        await redis.zadd(keyOf(i), ...[...members].flatMap((m) => ['0', m]));
        await redis.sadd(k.queues, `q${i}`);
        for (const member of members) all.push({ member, tag: `q${i}` });
      }
      all.sort((x, y) => byBytes(x.member, y.member));
      // Redis's own order of one lane is the order compared here
      const one = await redis.zrangebylex(keyOf(0), '-', '+');
      expect(one).toEqual([...one].sort(byBytes));

      const laneList = Array.from({ length: lanes }, (_, i) => ({ key: keyOf(i), tag: `q${i}` }));
      for (const [step, walk] of steps.flatMap((step) => [
        [step, new ListWalk(redis, laneList)] as const,
        [step, ListWalk.ofQueues(redis, k)] as const,
      ])) {
        const got: { member: string; tag: string | undefined }[] = [];
        for (;;) {
          const take = await walk.take(step);
          take.members.forEach((member, i) => {
            got.push({ member, tag: take.tags[i] });
          });
          if (take.done) break;
          expect(take.members.length).toBe(step);
        }
        expect(got).toEqual(all);
        expect(walk.read).toBe(all.length);
      }
      // from a member on: the rest, after it
      const cut = all[Math.floor(all.length / 3)]!.member;
      for (const rest of [new ListWalk(redis, laneList, `(${cut}`), ListWalk.ofQueues(redis, k, `(${cut}`)]) {
        const take = await rest.take(all.length);
        expect(take.done).toBe(true);
        expect(take.members).toEqual(all.slice(Math.floor(all.length / 3) + 1).map((x) => x.member));
      }
    });
  }

  it('an empty partition: nothing, done', async () => {
    const take = await ListWalk.ofQueues(redis, keysOf(`${prefix}-empty`)).take(10);
    expect(take).toEqual({ members: [], tags: [], done: true });
  });
});
