// The trust issue's four failover measurements, in the default configuration (see
// test/chaos/default-chaos.ts): scheduler replicas SIGKILLed and replaced while plain BullMQ consumers
// count every run. One Redis (REDIS_URL, else 127.0.0.1:6379), or `--cluster` for a private local
// 3-master cluster.
//
//   npm run bench:failover [-- --only churn|active|pair|start] [--cluster] [--seconds 20] [--schedules N]
import { type ChaosPlan, describeChaos, runChaos } from '../test/chaos/default-chaos.js';
import { compileChildFixtures } from '../test/setup/child-fixtures.js';
import { startCluster } from '../test/setup/redis-cluster.js';

const argv = process.argv;
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const seconds = Number(arg('seconds') ?? 20);
const only = arg('only');
const schedules = arg('schedules');
// the replicas run the built code, as in the tests (test/setup/child-fixtures.ts builds it when stale)
await compileChildFixtures();
const cluster = argv.includes('--cluster') ? await startCluster({ nodeTimeoutMs: 1000 }) : undefined;
const where = cluster
  ? { clusterNodes: cluster.nodesText }
  : { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };

const shapes: Record<string, Omit<ChaosPlan, 'where'>> = {
  churn: { replicas: 3, schedules: 200, aligned: true, seconds, kills: 'churn' },
  active: { replicas: 3, schedules: 200, aligned: true, seconds: 10, kills: 'active' },
  pair: { replicas: 4, schedules: 20, aligned: true, seconds: 12, kills: 'pair' },
  start: { replicas: 3, schedules: 200, aligned: true, seconds: 3, kills: 'none' },
};
try {
  for (const [name, shape] of Object.entries(shapes)) {
    if (only && only !== name) continue;
    const plan = {
      ...shape,
      where,
      log: argv.includes('--verbose') ? console.log : undefined,
      ...(schedules && { schedules: Number(schedules) }),
    };
    const r = await runChaos(plan);
    console.log(`${name}: ${describeChaos(plan, r)}`);
  }
} finally {
  await cluster?.stop();
}
