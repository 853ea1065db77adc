// bench:add: what adding one job costs, BullMQ's `queue.addBulk` against bullbeat's one-call add
// (`addJobsInOneCall`: BullMQ's own add scripts run in a loop inside one script call), and the same
// with each job's `like` (a schedule's jobs made from a template of BullMQ's, from its third job: the
// fire loop's case; one queue and one options object per schedule kept across rounds), side by side
// in one run on the same Redis. Per job: this process's CPU (µs, `process.cpuUsage`) and Redis's
// (`INFO cpu`). Jobs as a claim adds them: an occurrence's data and options, a custom id each.
//
//   REDIS_URL=redis://127.0.0.1:6391 npm run bench:add [-- --jobs 1000 --rounds 10 --chunk 100 --staged]
// --staged: every job staged ahead as the fire loop stages an occurrence claimed before its time (its
// `timestamp` the claim's clock, its `delay` to the fire time: a delayed job; the default set-up's case)
// A private redis-server is best (`redis-server --port 6391 --save '' --appendonly no`): Redis's CPU is
// read for the whole server.
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addJobsInOneCall } from '../src/store/bullmq/bulk-add.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '10' },
    chunk: { type: 'string', default: '100' },
    staged: { type: 'boolean', default: false },
  },
});
const JOBS = Number(values.jobs);
const ROUNDS = Number(values.rounds);
const CHUNK = Number(values.chunk);
const STAGED = values.staged;
const conn = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const prefix = `bench-add-${process.pid}`;

async function redisCpuUs(): Promise<number> {
  const info = await conn.info('cpu');
  const field = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

type Way = 'addBulk' | 'one call' | 'one call, templates';
const WAYS: readonly Way[] = ['addBulk', 'one call', 'one call, templates'];
/** The templates' queue and each schedule's options object, the same every round. */
const kept = { queue: undefined as Queue | undefined, likes: [] as object[] };

/** One round: JOBS jobs added in chunks of CHUNK, all in flight; CPU per job. */
async function round(way: Way, r: number): Promise<{ js: number; redis: number }> {
  const templates = way === 'one call, templates';
  const q = templates
    ? (kept.queue ??= new Queue('q-templates', { connection: conn, prefix }))
    : new Queue(`q-${way === 'addBulk' ? 'bulk' : 'one'}-${r}`, { connection: conn, prefix });
  await q.waitUntilReady();
  const fireAt = (STAGED ? Math.ceil(Date.now() / 1000) * 1000 + 1000 : 1_765_000_000_000) + r * 1000;
  // staged: claimed a little before the fire time, each chunk at its own instant (stagedJobOptions)
  const staged = (i: number) => {
    const timestamp = fireAt - 300 - Math.floor(i / CHUNK);
    return STAGED ? { timestamp, delay: fireAt - timestamp } : {};
  };
  const jobs = Array.from({ length: JOBS }, (_, i) => ({
    name: 'nightly-report',
    data: { scheduleId: `report-${i}`, fireAt, kind: 'scheduled', prefix: 'bullbeat', payload: { a: 1 } },
    opts: { jobId: `bb-report-${i}-${fireAt}`, removeOnComplete: { count: 1000 }, attempts: 3, ...staged(i) },
    ...(templates && { like: (kept.likes[i] ??= { schedule: i }) }),
  }));
  const cpu0 = process.cpuUsage();
  const redis0 = await redisCpuUs();
  const calls: Promise<unknown>[] = [];
  for (let from = 0; from < JOBS; from += CHUNK) {
    const part = jobs.slice(from, from + CHUNK);
    calls.push(way === 'addBulk' ? q.addBulk(part) : addJobsInOneCall(q, part));
  }
  await Promise.all(calls);
  const cpu = process.cpuUsage(cpu0);
  const redis = (await redisCpuUs()) - redis0;
  await q.obliterate({ force: true });
  if (!templates) await q.close();
  return { js: (cpu.user + cpu.system) / JOBS, redis: redis / JOBS };
}

const rows: string[] = [];
const sums = Object.fromEntries(
  WAYS.map((w) => [w, { js: [] as number[], redis: [] as number[] }]),
) as Record<Way, { js: number[]; redis: number[] }>;
// interleaved: addBulk, one call, templates, addBulk, ... (the first two rounds of each warm up, and
// make the templates)
for (let r = 0; r < ROUNDS; r++) {
  for (const way of WAYS) {
    const x = await round(way, r);
    if (r < 2) continue;
    sums[way].js.push(x.js);
    sums[way].redis.push(x.redis);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const base = { js: median(sums.addBulk.js), redis: median(sums.addBulk.redis) };
for (const way of WAYS) {
  const js = median(sums[way].js);
  const redis = median(sums[way].redis);
  rows.push(
    `| ${way} | ${js.toFixed(1)} | ${redis.toFixed(1)} | ${(js + redis).toFixed(1)} | ${((js + redis) / (base.js + base.redis)).toFixed(2)}x |`,
  );
}
console.log(
  `\nAdding ${JOBS}${STAGED ? ' staged (delayed)' : ''} jobs in chunks of ${CHUNK}, ${ROUNDS - 2} measured rounds each (median), interleaved.\n`,
);
console.log('| add | this process µs/job | Redis µs/job | both | vs addBulk |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
await kept.queue?.close();
await conn.quit();
