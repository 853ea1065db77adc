// Schedules by the million: bullbeat with N schedules (default 1,000,000) on its own redis-server (and on
// a private 3-master cluster), side by side with BullMQ job schedulers where BullMQ can hold the count.
// Per target, on a fresh server started by the bench (`redis-server --port P --save '' --appendonly no`):
//
// 1. memory per idle schedule: 10,000 without labels (the figure test/store's memory test bounds), then
//    the N schedules with one label each (`tenant: t<i % 1000>`), every hour at second `i % 3600` of it
//    (a six-field cron); `used_memory` growth / count. The audit trail is off (`auditLimit: 0`), measured apart
//    (`--audit` keeps it: an idle schedule's `create` in its partition's first-entry hashes, bench/idle-memory.ts).
// 2. bulk create: `scheduleMany` in batches of 20,000 (BullMQ: `upsertJobScheduler`, 1,000 in flight).
// 3. reads: the first page of `list` by name (read from the name index: 50 entries per partition), a selector
//    (`tenant=t7`: N/1000 schedules) by the label index, a page of it, and the agenda of the next hour of
//    that selector; a filtered page from the list indexes (status active, and a search for a rare id).
// 4. steady state: one scheduler replica fires the N hourly schedules (N/3600 a second) for
//    `--steady-seconds`; Redis CPU (used_cpu_sys + used_cpu_user) per second and per fire.
// 5. top of the minute: `--aligned` (default 100,000) more schedules due at one minute (a daily cron at a
//    minute placed after their creation ends; BullMQ's side the same, as job schedulers), a worker runtime
//    (concurrency 200) starting each; lateness = handler start - the occurrence's nominal time. BullMQ: the
//    same count of job schedulers (the same daily pattern, UTC) and a plain Worker. Only on the single Redis.
//    The busiest second twice: of fires (from the records: the instant each job became runnable, its
//    nominal time + spread offset + `capDelayMs`), which the cap bounds, and of handler starts, which
//    also bunch when the worker (in this process, beside the scheduler's adds) falls behind.
//
//   npm run bench:scale                       (node --import tsx bench/scale.ts)
//   node --import tsx bench/scale.ts --n 100000 --targets single --aligned 20000
//   --targets single,cluster   --bullmq no   --steady-seconds 30   --settle-seconds 5
//   --spread 30s [--max-fires-per-second C]: the aligned schedules measured three times: as is, with
//   `spread: 30s` (lateness vs nominal and vs nominal + the schedule's offset), and under
//   `maxFiresPerSecond` C (default: aligned / the spread's seconds); each with its busiest second
//   --aligned-only: only that measure (a quick run: --aligned-only --aligned 2000 --spread 30s --bullmq no)
//
// Prints progress on stderr and Markdown on stdout, ready for BENCHMARKS.md.
import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { agenda } from '../src/insight/agenda.js';
import { createWorker } from '../src/queue/create-worker.js';
import type { ScheduleManyItem } from '../src/scheduler/manager/schedule-many.js';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { openRedis, redisTarget } from '../src/store/connection/redis-target.js';
import { spreadOffsetMs } from '../src/store/forms/spread.js';
import { startCluster } from '../test/setup/redis-cluster.js';
import { startRedisServer } from '../test/setup/redis-server.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const N = Number(arg('n', '1000000'));
const TARGETS = arg('targets', 'single,cluster').split(',');
const WITH_BULLMQ = arg('bullmq', 'yes') !== 'no';
/** `--bullbeat no`: only BullMQ's side (to run the sides as separate processes). */
const WITH_BULLBEAT = arg('bullbeat', 'yes') !== 'no';
const ALIGNED = Number(arg('aligned', '100000'));
const STEADY_S = Number(arg('steady-seconds', '30'));
/**
 * `--settle-seconds`: how long the replica runs before the steady state is measured (default 5): at N
 * created over minutes, the occurrences due meanwhile are caught up first (`misfire: 'once'`).
 */
const SETTLE_S = Number(arg('settle-seconds', '5'));
const AUDIT = argv.includes('--audit');
/** `--spread <d>`: the aligned schedules measured again with `spread: <d>`, and under `--max-fires-per-second`. */
const SPREAD = arg('spread', '');
/** The fire-rate cap of the capped run (default: the aligned count over the spread window, at least 1). */
const CAP = arg('max-fires-per-second', '');
/** `--aligned-only`: only the top-of-the-minute measure (no N schedules, no BullMQ memory). */
const ALIGNED_ONLY = argv.includes('--aligned-only');
const BATCH = 20_000;
/** The time one schedule's creation is assumed to take (ms), to place the aligned minute after them all. */
const CREATE_MS_EACH = 1;
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f = (n: number) => Math.round(n).toLocaleString('en-US');
const s1 = (ms: number) => (ms / 1000).toFixed(1);
const log = (text: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${text}`);

interface Target {
  name: string;
  connection: string | { cluster: string };
  /** One client per master. */
  masters: Redis[];
  stop(): Promise<void>;
}

async function single(): Promise<Target> {
  const server = await startRedisServer();
  const client = openRedis(redisTarget(server.url));
  return {
    name: 'one Redis',
    connection: server.url,
    masters: [client],
    stop: async () => {
      await client.quit();
      await server.stop();
    },
  };
}

async function cluster(): Promise<Target> {
  const c = await startCluster({ nodeTimeoutMs: 5000 });
  const { masters } = await c.roles();
  const clients = masters.map((p) => openRedis(redisTarget(`redis://127.0.0.1:${p}`)));
  return {
    name: '3-master cluster',
    connection: { cluster: c.nodesText },
    masters: clients,
    stop: async () => {
      await Promise.all(clients.map((r) => r.quit()));
      await c.stop();
    },
  };
}

async function info(masters: Redis[], section: string, field: string): Promise<number> {
  let sum = 0;
  for (const r of masters) {
    const text = await r.info(section);
    sum += Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
  }
  return sum;
}
const usedMemory = (t: Target) => info(t.masters, 'memory', 'used_memory');
const cpuSeconds = async (t: Target) =>
  (await info(t.masters, 'cpu', 'used_cpu_sys')) + (await info(t.masters, 'cpu', 'used_cpu_user'));

function manager(t: Target, role: 'client' | 'scheduler', prefix: string): SchedulerManager {
  return new SchedulerManager({
    prefix,
    connection: t.connection,
    logger: silent,
    role,
    defaultQueue: `${prefix}-q`,
    ...(AUDIT ? {} : { auditLimit: 0 }),
  });
}

/** Hourly, at second `i % 3600` of the hour (a six-field cron): N/3600 fire each second. */
const hourly = (i: number, labelled: boolean): ScheduleManyItem => ({
  target: { name: 'tick' },
  trigger: { type: 'cron', expression: `${i % 60} ${Math.floor(i / 60) % 60} * * * *` },
  options: { id: `s${i}`, ...(labelled && { labels: { tenant: `t${i % 1000}` } }) },
});

async function createAll(
  m: SchedulerManager,
  items: (i: number) => ScheduleManyItem,
  n: number,
): Promise<number> {
  const start = performance.now();
  for (let from = 0; from < n; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, n - from) }, (_, k) => items(from + k));
    const r = await m.scheduleMany(batch);
    if (r.failed.length > 0)
      throw new Error(`scheduleMany: ${r.failed.length} failed: ${r.failed[0]?.error}`);
    if ((from / BATCH) % 5 === 0) log(`  created ${f(from + batch.length)} / ${f(n)}`);
  }
  return performance.now() - start;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const out = await fn();
  return [out, performance.now() - t];
}

/** Rows of the bullbeat part for one target. */
async function bullbeatOn(t: Target): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const base = await usedMemory(t);
  // 1a. unlabelled idle schedules
  const bare = manager(t, 'client', `bare-${randomUUID().slice(0, 6)}`);
  await createAll(bare, (i) => hourly(i, false), 10_000);
  out.bare = `${f(((await usedMemory(t)) - base) / 10_000)} B`;
  await bare.select('!tenant').remove();
  await bare.close();
  log(`${t.name}: unlabelled ${out.bare} per idle schedule`);
  // 1b + 2. N labelled schedules, created in bulk
  const prefix = `scale-${randomUUID().slice(0, 6)}`;
  const m = manager(t, 'client', prefix);
  const before = await usedMemory(t);
  const createMs = await createAll(m, (i) => hourly(i, true), N);
  out.memory = `${f(((await usedMemory(t)) - before) / N)} B`;
  out.create = `${s1(createMs)} s (${f(N / (createMs / 1000))}/s)`;
  log(`${t.name}: ${f(N)} created in ${out.create}, ${out.memory} per labelled idle schedule`);
  // 3. reads
  const [, listMs] = await timed(() => m.listPage({ limit: 50 }));
  const [ids, selectMs] = await timed(() => m.select('tenant=t7').ids());
  const [, pageMs] = await timed(() => m.listPage({ selector: 'tenant=t7', limit: 50 }));
  const [a, agendaMs] = await timed(() => agenda(m, { nextMs: 3_600_000, selector: 'tenant=t7' }));
  out.list = `${f(listMs)} ms`;
  out.select = `${f(selectMs)} ms (${f(ids.length)} ids)`;
  out.selectPage = `${f(pageMs)} ms`;
  out.agenda = `${f(agendaMs)} ms (${f(a.entries.length)} fires)`;
  // the filtered list from the list indexes: a status (every one active: the name index less the status
  // indexes), and a search for a rare id (a walk of the names until its page is full, counted on to
  // 20,000 entries a partition)
  const [, activeMs] = await timed(() => m.listPage({ status: 'active', limit: 50 }));
  const [found, searchMs] = await timed(() => m.listPage({ search: 's4242', limit: 50 }));
  out.filtered = `status ${f(activeMs)} ms; search ${f(searchMs)} ms (${found.totalAtLeast ? '≥ ' : ''}${f(found.total)})`;
  log(
    `${t.name}: list ${out.list}, select ${out.select}, page ${out.selectPage}, agenda ${out.agenda}, filtered ${out.filtered}`,
  );
  await m.close();
  // 4. steady state: one replica fires N/3600 a second
  if (STEADY_S > 0) {
    const s = manager(t, 'scheduler', prefix);
    let firedTotal = 0;
    s.on('fired', () => {
      firedTotal++;
    });
    await s.start();
    await sleep(SETTLE_S * 1000); // settled: the backlog of the creation's minutes caught up
    const cpu0 = await cpuSeconds(t);
    const fired0 = firedTotal;
    const at0 = performance.now();
    await sleep(STEADY_S * 1000);
    const cpu = (await cpuSeconds(t)) - cpu0;
    const fired = firedTotal - fired0;
    const secs = (performance.now() - at0) / 1000;
    out.steady = `${f(fired / secs)} fires/s, Redis CPU ${f((cpu / secs) * 1000)} ms/s (${f((cpu * 1e6) / Math.max(1, fired))} us per fire)`;
    log(`${t.name}: steady ${out.steady}`);
    await s.stop();
  }
  return out;
}

/** One run of the top-of-the-minute measure: as is, with `spread`, or under a fire-rate cap. */
interface AlignedVariant {
  label: string;
  spreadMs?: number;
  maxFiresPerSecond?: number;
}

/**
 * Top of the minute: `count` `* * * * *` schedules (with the variant's `spread` or cap), a worker
 * runtime starting each. Lateness = handler start - nominal time; with `spread`, also handler start -
 * (nominal + the schedule's offset), its own planned instant; and the busiest second of handler starts.
 */
async function alignedBullbeat(t: Target, count: number, variant: AlignedVariant): Promise<string> {
  const prefix = `al-${randomUUID().slice(0, 6)}`;
  const m = new SchedulerManager({
    prefix,
    connection: t.connection,
    logger: silent,
    role: 'scheduler',
    defaultQueue: `${prefix}-q`,
    ...(AUDIT ? {} : { auditLimit: 0 }),
    ...(variant.maxFiresPerSecond !== undefined && { maxFiresPerSecond: variant.maxFiresPerSecond }),
  });
  const starts: { at: number; nominal: number; planned: number }[] = [];
  m.handle('minute', (ctx: { fireAt: number; scheduleId: string }) => {
    const offset = variant.spreadMs ? spreadOffsetMs(ctx.scheduleId, variant.spreadMs) : 0;
    starts.push({ at: Date.now(), nominal: ctx.fireAt, planned: ctx.fireAt + offset });
  });
  // one minute, daily, far enough ahead that creating them all ends before it (a `* * * * *` whose
  // creation crossed a minute fired that minute's occurrences late, on start, in the measured burst)
  const minute = Math.ceil((Date.now() + count * CREATE_MS_EACH + 15_000) / 60_000) * 60_000;
  const at = new Date(minute);
  const expression = `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
  await createAll(
    m,
    (i) => ({
      target: { name: 'minute' },
      trigger: { type: 'cron', expression },
      options: { id: `a${i}`, ...(variant.spreadMs !== undefined && { spread: variant.spreadMs }) },
    }),
    count,
  );
  const w = await createWorker(m, { queues: [`${prefix}-q`], concurrency: 200, logger: silent });
  await w.ready();
  if (Date.now() > minute - 5000) throw new Error(`creating ${f(count)} took past ${at.toISOString()}`);
  await m.start();
  log(`bullbeat aligned (${variant.label}): waiting for ${new Date(minute).toISOString()}`);
  const deadline = minute + 120_000;
  const ofMinute = () => starts.filter((s) => s.nominal === minute);
  while (ofMinute().length < count && Date.now() < deadline) await sleep(500);
  await w.close({ graceMs: 1000 });
  await m.stop();
  // the fires, from the records: the instant each job became runnable (nominal + offset + cap delay)
  const fires: number[] = [];
  const outcomes = new Map<string, number>();
  for (let from = 0; from < count; from += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - from) }, (_, k) => `a${from + k}`);
    for (const [k, r] of (await Promise.all(ids.map((id) => m.history.get(id, minute)))).entries()) {
      if (!r) continue;
      const offset = variant.spreadMs ? spreadOffsetMs(ids[k]!, variant.spreadMs) : 0;
      fires.push(r.fireAt + offset + (r.capDelayMs ?? 0));
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
    }
  }
  log(`bullbeat aligned (${variant.label}): records ${JSON.stringify([...outcomes])}`);
  await m.close();
  const mine = ofMinute();
  const busiest = busiestSecond(mine.map((s) => s.at));
  const busiestFire = busiestSecond(fires);
  const spanS = mine.length === 0 ? 0 : (Math.max(...mine.map((s) => s.at)) - minute) / 1000;
  const vsNominal = lateness(
    mine.map((s) => s.at - s.nominal),
    count,
  );
  const vsPlanned = variant.spreadMs
    ? `; vs nominal + offset: ${lateness(
        mine.map((s) => s.at - s.planned),
        count,
        false,
      )}`
    : '';
  return `${vsNominal}${vsPlanned}; busiest second ${f(busiestFire)} fires (records), ${f(busiest)} handler starts; last start ${spanS.toFixed(1)} s after the minute`;
}

/** The most instants (epoch ms) that fall in one epoch second. */
function busiestSecond(instants: readonly number[]): number {
  const perSecond = new Map<number, number>();
  for (const at of instants) {
    const sec = Math.floor(at / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
  }
  return Math.max(0, ...perSecond.values());
}

async function alignedBullmq(t: Target, count: number): Promise<string> {
  const name = `mq-al-${randomUUID().slice(0, 6)}`;
  const connection = { url: t.connection as string, maxRetriesPerRequest: null };
  const q = new Queue(name, { connection });
  // the same shape as bullbeat's side: one minute, daily (UTC), placed after their creation ends (a
  // `* * * * *` scheduler created early fires the minutes its creation crosses, before the worker runs)
  const minute = Math.ceil((Date.now() + count * CREATE_MS_EACH * 2 + 15_000) / 60_000) * 60_000;
  const at = new Date(minute);
  const pattern = `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
  for (let from = 0; from < count; from += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, count - from) }, (_, k) =>
        q.upsertJobScheduler(`a${from + k}`, { pattern, tz: 'UTC' }, { name: 'minute' }),
      ),
    );
    if ((from / 1000) % 20 === 0)
      log(`  BullMQ aligned upserted ${f(Math.min(count, from + 1000))} / ${f(count)}`);
  }
  if (Date.now() > minute - 5000)
    throw new Error(`BullMQ: upserting ${f(count)} took past ${at.toISOString()}`);
  const late: number[] = [];
  const w = new Worker(
    name,
    async (job) => {
      const due = job.timestamp + (job.opts.delay ?? 0);
      if (due >= minute) late.push(Date.now() - due);
    },
    { connection, concurrency: 200 },
  );
  log(`BullMQ aligned: waiting for ${new Date(minute).toISOString()}`);
  const deadline = minute + 120_000;
  while (late.length < count && Date.now() < deadline) await sleep(500);
  await w.close();
  await q.close();
  return lateness(late.slice(0, count), count);
}

function lateness(late: number[], count: number, counted = true): string {
  const s = [...late].sort((a, b) => a - b);
  const p = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return `p50 ${f(p(0.5))} ms, p99 ${f(p(0.99))} ms, max ${f(s.at(-1) ?? Number.NaN)} ms${counted ? ` (${f(s.length)} of ${f(count)} started within 2 min)` : ''}`;
}

/** BullMQ job schedulers: memory per idle one and upsert time at `n`. */
async function bullmqOn(t: Target, n: number): Promise<Record<string, string>> {
  const name = `mq-${randomUUID().slice(0, 6)}`;
  const q = new Queue(name, { connection: { url: t.connection as string, maxRetriesPerRequest: null } });
  const before = await usedMemory(t);
  const start = performance.now();
  for (let from = 0; from < n; from += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, n - from) }, (_, k) =>
        q.upsertJobScheduler(`s${from + k}`, { every: 3_600_000 }, { name: 'tick' }),
      ),
    );
    if ((from / 1000) % 100 === 0) log(`  BullMQ upserted ${f(from + 1000)} / ${f(n)}`);
  }
  const ms = performance.now() - start;
  const out = {
    memory: `${f(((await usedMemory(t)) - before) / n)} B`,
    create: `${s1(ms)} s (${f(n / (ms / 1000))}/s)`,
  };
  await q.close();
  return out;
}

/** The aligned runs: as is; with `--spread`, also spread, and under the fire-rate cap. */
function alignedVariants(): AlignedVariant[] {
  const plain = { label: 'no spread, no cap (worker runtime, concurrency 200)' };
  if (SPREAD === '') return [plain];
  const spreadMs = parseDurationMs(SPREAD);
  const cap = CAP === '' ? Math.max(1, Math.ceil(ALIGNED / Math.max(1, spreadMs / 1000))) : Number(CAP);
  if (!Number.isInteger(cap) || cap < 1) {
    throw new Error(`--max-fires-per-second: must be a whole number >= 1, got "${CAP}"`);
  }
  return [
    plain,
    { label: `spread ${SPREAD}`, spreadMs },
    { label: `maxFiresPerSecond ${f(cap)}`, maxFiresPerSecond: cap },
  ];
}

/** `--spread`'s duration: whole ms, or `500ms`, `30s`, `10m`, `1h`. */
function parseDurationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`--spread: "${text}" is not a duration (500ms, 30s, 10m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

const rows: [string, Record<string, string>][] = [];
const alignedRows: [string, string][] = [];
for (const which of TARGETS) {
  log(`starting ${which}`);
  const t = which === 'cluster' ? await cluster() : await single();
  try {
    if (WITH_BULLBEAT && !ALIGNED_ONLY) rows.push([`bullbeat, ${t.name}`, await bullbeatOn(t)]);
    if (which === 'single') {
      if (WITH_BULLMQ && !ALIGNED_ONLY) rows.push([`BullMQ job schedulers, ${t.name}`, await bullmqOn(t, N)]);
      if (ALIGNED > 0) {
        if (WITH_BULLBEAT) {
          for (const variant of alignedVariants()) {
            alignedRows.push([`bullbeat, ${variant.label}`, await alignedBullbeat(t, ALIGNED, variant)]);
          }
        }
        if (WITH_BULLMQ)
          alignedRows.push([
            'BullMQ job schedulers + Worker (concurrency 200)',
            await alignedBullmq(t, ALIGNED),
          ]);
      }
    }
  } catch (err) {
    log(`${which}: stopped: ${(err as Error).stack}`);
    rows.push([`${which}: stopped`, { create: (err as Error).message }]);
  } finally {
    await t.stop();
  }
}

const command = `\`node --import tsx bench/scale.ts ${argv.slice(2).join(' ')}\``;
if (!ALIGNED_ONLY) {
  console.log(`\n${f(N)} schedules (${new Date().toISOString().slice(0, 10)}, ${command})\n`);
  console.log(
    '| side | idle, no labels | idle, 1 label | bulk create | list page by name (name index) | filtered page: status active; search "s4242" | selector tenant=t7 | its list page | its agenda (1 h) | steady state (one replica) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, r] of rows) {
    const c = (k: string) => r[k] ?? '-';
    console.log(
      `| ${name} | ${c('bare')} | ${c('memory')} | ${c('create')} | ${c('list')} | ${c('filtered')} | ${c('select')} | ${c('selectPage')} | ${c('agenda')} | ${c('steady')} |`,
    );
  }
}
if (alignedRows.length > 0) {
  console.log(
    `\n${f(ALIGNED)} schedules due at the same minute, ${ALIGNED_ONLY ? `alone (${new Date().toISOString().slice(0, 10)}, ${command})` : `beside the ${f(N)}`} (one Redis; handler start - nominal time)${SPREAD ? `; spread ${SPREAD} and the cap: lateness vs nominal includes the intended delay` : ''}\n`,
  );
  console.log('| side | lateness |');
  console.log('|---|---|');
  for (const [name, l] of alignedRows) console.log(`| ${name} | ${l} |`);
}
process.exit(0);
