// The physical-limit producer of bench/burst.ts, as a child process: no scheduler, it adds the N jobs
// of every second of [FROM, TO) itself with `addBulk` (1,000-job batches, all in flight at once) at
// that second, carrying bullbeat's job payload so that the worker runtime can run them too. Reports,
// on SIGTERM, per second the time from the instant to the end of its last `addBulk` (`burstMs`).
import { Queue } from 'bullmq';

const env = process.env;
const queue = new Queue(env.QUEUE!, { connection: { url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' } });
const n = Number(env.N);
const from = Number(env.FROM);
const to = Number(env.TO);
const keep = Number(env.KEEP_SEC ?? 5);
const burstMs: number[] = [];
const opts = { removeOnComplete: { age: keep }, removeOnFail: { age: keep } };

async function burst(fireAt: number): Promise<void> {
  const adds: Promise<unknown>[] = [];
  for (let i = 0; i < n; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
      name: 'tick',
      data: {
        scheduleId: `s${i + j}`,
        fireAt,
        kind: 'scheduled',
        args: [],
        prefix: env.PREFIX!,
        run: { maxInstances: 1, overlap: 'skip', slot: { mode: 'skip', cap: 1 } },
      },
      opts: { ...opts, jobId: `bb-s${i + j}-${fireAt}` },
    }));
    adds.push(queue.addBulk(batch));
  }
  await Promise.all(adds);
  if (fireAt >= from) burstMs.push(Date.now() - fireAt);
}

let stopped = false;
async function loop(): Promise<void> {
  await queue.waitUntilReady();
  process.stdout.write('ready\n');
  let next = Math.max(from, Math.ceil(Date.now() / 1000) * 1000);
  const pending: Promise<void>[] = [];
  while (!stopped && next < to) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (Date.now() < next) await new Promise((r) => setImmediate(r)); // timers may fire early by 1 ms
    pending.push(burst(next));
    next += 1000;
  }
  await Promise.all(pending);
}
const done = loop();
process.on('SIGTERM', () => {
  stopped = true;
  void done.then(async () => {
    await queue.close();
    process.stdout.write(`${JSON.stringify({ burstMs })}\n`, () => process.exit(0));
  });
});
