// bench:catch-up: what the outcome follower's catch-up costs. When a scheduler finds a plain BullMQ
// Worker on a queue (at its start, after a restart), it looks at the whole kept history of every
// schedule of that queue for records still `enqueued` whose job finished meanwhile. N schedules with
// DEPTH records each (one in a hundred still `enqueued`) are read as the reconciliation reads them
// (`enqueuedRecords`, 200 schedules a pass): wall time, this process's CPU (the scheduler's: its fire
// loop shares the event loop) and Redis's CPU, per round.
//
//   npm run build && REDIS_URL=redis://127.0.0.1:6391 npm run bench:catch-up [-- --n 5000 --depth 100]
// A private redis-server is best (`redis-server --port 6391 --save '' --appendonly no`): its CPU is the
// whole server's. It runs the built code (dist/).
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { keys } from '../dist/src/store/keys/keys.js';
import { enqueuedRecords } from '../dist/src/store/reads/index.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    depth: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});
const N = Number(values.n);
const DEPTH = Number(values.depth);
const ROUNDS = Number(values.rounds);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `bench-catch-up-${process.pid}`;
const k = keys(prefix, 1);
const ids = Array.from({ length: N }, (_, i) => `s${i}`);

async function redisCpuUs(): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(info.match(new RegExp(`${name}:(\\S+)`))?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

// the history: each record as a completion and a foreign outcome leave it
for (let i = 0; i < N; i += 50) {
  const pipe = redis.pipeline();
  for (const id of ids.slice(i, i + 50)) {
    for (let t = 1; t <= DEPTH; t++) {
      pipe.zadd(k.runIndex(id), t, String(t));
      const done = t % 100 !== 0;
      pipe.hset(k.record(id, String(t)), {
        outcome: done ? 'succeeded' : 'enqueued',
        queue: 'q',
        jobId: `bb-${id}-${t}`,
        kind: 'scheduled',
        enqueuedAt: String(t),
        replica: 'host:1',
        claimedAt: String(t),
        ...(done && {
          consumer: 'foreign',
          startedAt: String(t + 1),
          finishedAt: String(t + 2),
          attempts: '1',
        }),
      });
    }
  }
  await pipe.exec();
}

console.log(
  `\nCatch-up over ${N} schedules x ${DEPTH} records (${N * Math.floor(DEPTH / 100)} still enqueued), 200 schedules a pass; ${new Date().toISOString()}\n`,
);
console.log('| round | found | wall ms | this process CPU ms | Redis CPU ms |');
console.log('|---|---|---|---|---|');
for (let r = 1; r <= ROUNDS; r++) {
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuUs();
  const t0 = performance.now();
  let found = 0;
  for (let i = 0; i < N; i += 200)
    found += (await enqueuedRecords(redis, k, ids.slice(i, i + 200), DEPTH)).length;
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const redisMs = ((await redisCpuUs()) - redis0) / 1000;
  console.log(
    `| ${r} | ${found} | ${wall.toFixed(0)} | ${((cpu.user + cpu.system) / 1000).toFixed(0)} | ${redisMs.toFixed(0)} |`,
  );
}

let cursor = '0';
do {
  const [next, batch] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 5000);
  cursor = next;
  if (batch.length > 0) await redis.unlink(...batch);
} while (cursor !== '0');
await redis.quit();
