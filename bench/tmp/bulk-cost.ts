import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addJobsInOneCall } from '../../src/store/bullmq/bulk-add.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6391';
const conn = new Redis(url, { maxRetriesPerRequest: null });
const CH = Number(process.env.CH ?? 250);
async function rcpu() {
  const s = await conn.info('cpu');
  const m = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(s)![1]);
  return (m('used_cpu_user') + m('used_cpu_sys')) * 1e6;
}
async function round(mode: string, r: number) {
  const q = new Queue(`q${mode}${r}`, { connection: conn, prefix: `bc${process.pid}` });
  await q.waitUntilReady();
  const jobs = Array.from({ length: 1000 }, (_, i) => ({
    name: 'nightly-report',
    data: {
      scheduleId: `sched-${i}`,
      fireAt: 1765000000000 + r * 1000,
      kind: 'scheduled',
      prefix: 'bullbeat',
      payload: { a: 1, b: 'two' },
    },
    opts: {
      jobId: `sched-${i}-${1765000000000 + r * 1000}`,
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
      attempts: 3,
      backoff: { type: 'exponential', delay: 1000 },
    },
  }));
  const c0 = process.cpuUsage();
  const r0 = await rcpu();
  const calls = [];
  for (let f = 0; f < jobs.length; f += CH) {
    const part = jobs.slice(f, f + CH);
    calls.push(mode === 'bulk' ? q.addBulk(part) : addJobsInOneCall(q, part));
  }
  await Promise.all(calls);
  const c = process.cpuUsage(c0);
  const rr = (await rcpu()) - r0;
  await q.obliterate({ force: true });
  await q.close();
  return { js: (c.user + c.system) / 1000, redis: rr / 1000 };
}
for (const mode of ['bulk', 'one', 'bulk', 'one', 'bulk', 'one']) {
  let js = 0,
    redis = 0;
  for (let r = 0; r < 10; r++) {
    const x = await round(mode, r);
    if (r >= 2) {
      js += x.js;
      redis += x.redis;
    }
  }
  console.log(mode, 'per job µs: js', (js / 8).toFixed(1), 'redis', (redis / 8).toFixed(1));
}
await conn.quit();
