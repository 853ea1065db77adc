// Redis memory per idle schedule, as shipped: N interval schedules (default 10,000) created by one
// client, the `used_memory` delta / N, once with the default audit trail (each schedule's one `create`
// entry) and once with `auditLimit: 0`, each on a fresh private redis-server (`--save ''
// --appendonly no`) warmed by 100 schedules of another deployment (scripts loaded, a client
// connected), the delta read after the client closed; then where the bytes are (`MEMORY USAGE` of
// each kind of key, per schedule).
//
//   npm run bench:idle-memory                       (node --import tsx bench/idle-memory.ts)
//   --n 2000     --actor api:deploy-bot (the actor the schedules are created by; default host:pid)
//
// Prints Markdown.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { SchedulerManager } from '../src/scheduler/manager/scheduler-manager.js';
import { IntervalTrigger } from '../src/triggers/interval-trigger.js';
import { startRedisServer } from '../test/setup/redis-server.js';

const argv = process.argv;
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : fallback;
};
const N = Number(arg('n', '10000'));
const ACTOR = arg('actor', '');
const silent = pino({ level: 'silent' });

/** `used_memory`, and the part of it that the connections' buffers hold (`mem_clients_normal`). */
async function usedMemory(redis: Redis): Promise<{ used: number; clients: number }> {
  const info = await redis.info('memory');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return {
    used: field('used_memory'),
    clients: field('mem_clients_normal'),
  };
}

async function perKind(redis: Redis, prefix: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 5000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of batch) pipe.memory('USAGE', k, 'SAMPLES', 0);
    const sizes = (await pipe.exec()) ?? [];
    batch.forEach((k, i) => {
      const kind = k.slice(`{${prefix}}:bb:`.length).replace(/:.*$/, '');
      out[kind] = (out[kind] ?? 0) + Number(sizes[i]?.[1] ?? 0);
    });
  } while (cursor !== '0');
  return out;
}

async function measure(url: string, auditLimit: number | undefined) {
  const redis = new Redis(url);
  // a warm server: the scripts loaded and compiled, a client's connections made (by 100 schedules of
  // another deployment), so that the delta is the schedules' own
  await create(url, `warm-${randomUUID().slice(0, 6)}`, auditLimit, 100);
  const prefix = `idle-${randomUUID().slice(0, 6)}`;
  const before = await usedMemory(redis);
  await create(url, prefix, auditLimit, N);
  const after = await usedMemory(redis);
  const delta = after.used - before.used;
  const clients = after.clients - before.clients;
  const kinds = await perKind(redis, prefix);
  await redis.quit();
  return { perSchedule: delta / N, clients: clients / N, kinds };
}

async function create(url: string, prefix: string, auditLimit: number | undefined, n: number) {
  const m = new SchedulerManager({
    prefix,
    connection: url,
    logger: silent,
    role: 'client',
    ...(auditLimit !== undefined && { auditLimit }),
  });
  const by = ACTOR ? { by: ACTOR, via: 'api' as const } : undefined;
  for (let from = 0; from < n; from += 1000) {
    const saved = [];
    for (let i = from; i < Math.min(n, from + 1000); i++) {
      saved.push(m.schedule({ name: 'tick' }, new IntervalTrigger(60), { id: `s${i}` }, by).saved);
    }
    await Promise.all(saved);
  }
  await m.close();
}

// each configuration on its own fresh server: what one leaves (script cache, a hash table mid-rehash)
// does not show in the other's delta
const configs = [
  ['default (audit trail on)', undefined],
  ['`auditLimit: 0`', 0],
] as const;
const rows: string[] = [];
let version: string | undefined;
for (const [name, limit] of configs) {
  const server = await startRedisServer();
  try {
    const probe = new Redis(server.url);
    version = /^redis_version:(\S+)/m.exec(await probe.info('server'))?.[1];
    await probe.quit();
    const r = await measure(server.url, limit);
    const kinds = Object.entries(r.kinds)
      .filter(([, v]) => v / N >= 1)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${Math.round(v / N)}`)
      .join(', ');
    rows.push(`| ${name} | ${Math.round(r.perSchedule)} B | ${Math.round(r.clients)} B | ${kinds} |`);
  } finally {
    await server.stop();
  }
}
console.log(
  `Redis ${version}, ${N.toLocaleString('en')} idle interval schedules, one client${ACTOR ? `, actor ${ACTOR}` : ''}:\n`,
);
console.log(
  '| configuration | `used_memory` delta per schedule | of which connection buffers (`mem_clients_normal`) | `MEMORY USAGE` per schedule, by key kind (B) |',
);
console.log('|---|---|---|---|');
for (const r of rows) console.log(r);
