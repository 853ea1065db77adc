// One bullbeat scheduler replica for bench/fire.ts and bench/burst.ts, as a child process: it fires the
// schedules that the bench created under PREFIX and reports, on SIGTERM, the enqueue lateness it saw
// (Redis time of the claim minus fireAt) as JSON on stdout, with, per fire instant of the window, the
// time from that instant to the end of the last `addBulk` carrying one of its occurrences (`burstMs`).
import { join } from 'node:path';
import pino from 'pino';
import type { FireHooks } from '../dist/src/scheduler/fire/fire-loop-types.js';
import { internalsOf } from '../dist/src/scheduler/index.js';
import { SchedulerManager } from '../dist/src/scheduler/manager/scheduler-manager.js';
import { startProfile, stopProfile } from './cpu-profile.js';

const manager = new SchedulerManager({
  prefix: process.env.PREFIX!,
  // bench/cluster.ts runs it on a Redis Cluster
  connection: process.env.CLUSTER_NODES
    ? { cluster: process.env.CLUSTER_NODES }
    : (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
  logger: pino({ level: 'warn' }),
  keepFinishedJobsSec: Number(process.env.KEEP_SEC ?? 5),
  tuning: { claimBatch: Number(process.env.BATCH ?? 1000) },
  ...(process.env.PARTITIONS && { partitions: Number(process.env.PARTITIONS) }),
  ...(process.env.FOREIGN === '0' && { foreignOutcomes: false }),
  ...(process.env.GATHER && { foreignOutcomes: { gatherMs: Number(process.env.GATHER) } }),
  // FOREIGN_OPTIONS: the outcome follower's options as JSON (experiments)
  ...(process.env.FOREIGN_OPTIONS && { foreignOutcomes: JSON.parse(process.env.FOREIGN_OPTIONS) }),
  ...(process.env.BACKPRESSURE === '0' && { backpressure: false }),
  // COMMIT_AHEAD=0: hold occurrences in the replica until their instant (staged ahead by default)
  ...(process.env.COMMIT_AHEAD === '0' && { commitAhead: false }),
});
const from = Number(process.env.FROM ?? 0);
const to = Number(process.env.TO ?? Number.MAX_SAFE_INTEGER);
const lateness: number[] = [];
// CPU time of this process per fire in the measured window (sampled every 256 fires).
let cpuFrom: NodeJS.CpuUsage | undefined;
let cpuPerFireUs = 0;
// WINDOW_PROFILE=DIR: a CPU profile of this process over the measured window alone (from its first
// occurrence fired to the stop), as DIR/scheduler-<pid>.cpuprofile; --cpu-prof covers the set-up too
const windowProfile = process.env.WINDOW_PROFILE;
let profiling: ReturnType<typeof startProfile> | undefined;
manager.on('fired', (e) => {
  if (e.fireAt >= from && e.fireAt < to) {
    if (windowProfile) profiling ??= startProfile();
    cpuFrom ??= process.cpuUsage();
    lateness.push(e.lateMs);
    if (lateness.length % 256 === 0) {
      const cpu = process.cpuUsage(cpuFrom); // sampled: it is a syscall
      cpuPerFireUs = (cpu.user + cpu.system) / lateness.length;
    }
  }
});
// fire instant -> ms from it until its last occurrence was in the queue (the addBulk resolved)
const burst = new Map<number, number>();
const claimedAt: (number | string)[] = [];
if (process.env.BURST_DEBUG) {
  manager.on('wake', (e) => {
    if (e.claimed > 0) claimedAt.push(`wake late ${e.lateMs} claimed ${e.claimed} at ${Date.now() % 1000}`);
  });
}
// the manager's test hooks, left out of its published types
(manager as unknown as { hooks: FireHooks }).hooks = {
  afterClaim: (claims) => {
    const at = Date.now();
    if (claims[0] && claims[0].fireAt >= from && claims[0].fireAt < to) claimedAt.push(at - claims[0].fireAt);
  },
  afterEnqueue: (claims) => {
    const at = Date.now(); // Redis runs on this host: the same clock
    for (const c of claims) {
      if (c.fireAt >= from && c.fireAt < to)
        burst.set(c.fireAt, Math.max(burst.get(c.fireAt) ?? 0, at - c.fireAt));
    }
  },
};
/** The window's profile written (when WINDOW_PROFILE asked for one). */
async function writeProfile(): Promise<void> {
  if (!profiling) return;
  await stopProfile(await profiling, join(windowProfile!, `scheduler-${process.pid}.cpuprofile`)).catch(
    () => undefined,
  );
}
process.on('SIGTERM', () => {
  void writeProfile()
    .then(() => manager.stop())
    .then(() => {
      process.stdout.write(
        `${JSON.stringify({ lateness, cpuPerFireUs, stats: internalsOf(manager).loopStats, burstMs: [...burst.values()], claimedAt })}\n`,
        () => process.exit(0),
      );
    });
});
void manager.start().then(() => process.stdout.write('ready\n'));
