// A search for rare text over a name index of N members (default 1,000,000), three ways, each timed and
// charged the Redis server's CPU meanwhile (INFO cpu: used_cpu_user + used_cpu_sys):
//   walk: what list-index.ts does: `ZRANGE BYLEX ... LIMIT 1000` steps, the text tested in the client;
//   zscan: `ZSCAN ... MATCH *<text>* COUNT c` with a case-insensitive glob (`[rR][eE]...`), tested in Redis;
//   lua: a script that takes a step of `ZRANGE BYLEX` and returns only the members that hold the text
//        (`string.lower`, `string.find` plain), the client walking step by step.
// The index is bench:scale's shape: `report-<i % 1000>\0s<i>` (the name index's `<name>\0<id>`), one
// partition, on a private redis-server the bench starts. A design that moves the walk into Redis is worth
// taking only if Redis spends no more on it: Redis is the deployment's one shared resource.
//
//   node --import tsx bench/search-designs.ts [--n 1000000]
import type { Redis } from 'ioredis';
import { openRedis, redisTarget } from '../src/store/connection/redis-target.js';
import { startRedisServer } from '../test/setup/redis-server.js';

const argv = process.argv;
const N = Number(argv[argv.indexOf('--n') + 1] ?? 1_000_000) || 1_000_000;
const KEY = 'names';
const TEXT = 'zz4242'; // in no member

const LUA = `
local members = redis.call('ZRANGE', KEYS[1], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #members do
  if string.find(string.lower(members[i]), ARGV[3], 1, true) then out[#out + 1] = members[i] end
end
out[#out + 1] = members[#members] or ''
out[#out + 1] = tostring(#members)
return out`;

/** Redis's own CPU so far (ms): used_cpu_user + used_cpu_sys (its commands, scripts and network I/O alike). */
async function commandMs(redis: Redis): Promise<number> {
  const cpu = await redis.info('cpu');
  const used = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  return (used('used_cpu_user') + used('used_cpu_sys')) * 1000;
}

async function timed(redis: Redis, what: string, fn: () => Promise<number>): Promise<string> {
  const cpu0 = await commandMs(redis);
  const t = performance.now();
  const found = await fn();
  const ms = performance.now() - t;
  const cpu = (await commandMs(redis)) - cpu0;
  const row = `| ${what} | ${ms.toFixed(0)} ms | ${cpu.toFixed(0)} ms | ${found} |`;
  console.error(row);
  return row;
}

async function walk(redis: Redis): Promise<number> {
  let from = '-';
  let found = 0;
  for (;;) {
    const members = await redis.zrangebylex(KEY, from, '+', 'LIMIT', 0, 1000);
    for (const m of members) {
      const cut = m.lastIndexOf('\0');
      if (
        m.slice(0, cut).toLowerCase().includes(TEXT) ||
        m
          .slice(cut + 1)
          .toLowerCase()
          .includes(TEXT)
      )
        found++;
    }
    if (members.length < 1000) return found;
    from = `(${members.at(-1)!}`;
  }
}

async function zscan(redis: Redis, count: number): Promise<number> {
  const glob = [...TEXT].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('');
  let cursor = '0';
  let found = 0;
  do {
    const [next, flat] = await redis.zscan(KEY, cursor, 'MATCH', `*${glob}*`, 'COUNT', count);
    cursor = next;
    found += flat.length / 2;
  } while (cursor !== '0');
  return found;
}

async function lua(redis: Redis, sha: string, step: number): Promise<number> {
  let from = '-';
  let found = 0;
  for (;;) {
    const out = (await redis.evalsha(sha, 1, KEY, from, step, TEXT)) as string[];
    const read = Number(out.pop());
    const last = out.pop() as string;
    found += out.length;
    if (read < step) return found;
    from = `(${last}`;
  }
}

const server = await startRedisServer();
const redis = openRedis(redisTarget(server.url));
try {
  for (let from = 0; from < N; from += 10_000) {
    const args: (string | number)[] = [];
    for (let i = from; i < Math.min(N, from + 10_000); i++)
      args.push(0, `report-${String(i % 1000).padStart(3, '0')}\0s${i}`);
    await redis.zadd(KEY, ...args);
  }
  const sha = (await redis.script('LOAD', LUA)) as string;
  const rows = [
    await timed(redis, 'walk: ZRANGE BYLEX 1,000 a step, tested in the client (list-index.ts)', () =>
      walk(redis),
    ),
    await timed(redis, 'zscan MATCH, COUNT 1,000', () => zscan(redis, 1000)),
    await timed(redis, 'zscan MATCH, COUNT 5,000', () => zscan(redis, 5000)),
    await timed(redis, 'lua: 1,000 a step, tested in Redis', () => lua(redis, sha, 1000)),
    await timed(redis, 'lua: 5,000 a step', () => lua(redis, sha, 5000)),
  ];
  console.log(`\n${N.toLocaleString('en-US')} members, a text in none of them\n`);
  console.log('| way | wall | Redis CPU | found |\n|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await redis.quit();
  await server.stop();
}
