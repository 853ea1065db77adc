// One bullbeat scheduler replica for bench/fire.ts, as a child process: it fires the schedules that
// the bench created under PREFIX and reports, on SIGTERM, the enqueue lateness it saw (Redis time of the
// claim minus fireAt) as JSON on stdout.
import pino from 'pino';
import { SchedulerManager } from '../src/scheduler/scheduler-manager.js';

const manager = new SchedulerManager({
  prefix: process.env.PREFIX!,
  connection: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  logger: pino({ level: 'warn' }),
  keepFinishedJobsSec: Number(process.env.KEEP_SEC ?? 5),
  claimBatch: Number(process.env.BATCH ?? 1000),
});
const from = Number(process.env.FROM ?? 0);
const to = Number(process.env.TO ?? Number.MAX_SAFE_INTEGER);
const lateness: number[] = [];
// CPU time of this process over the measured window (from the first fire in it to the last).
let cpuFrom: NodeJS.CpuUsage | undefined;
let cpu: NodeJS.CpuUsage | undefined;
manager.on('fired', (e) => {
  if (e.fireAt >= from && e.fireAt < to) {
    cpuFrom ??= process.cpuUsage();
    lateness.push(e.lateMs);
    cpu = process.cpuUsage(cpuFrom);
  }
});
process.on('SIGTERM', () => {
  void manager.stop().then(() => {
    process.stdout.write(
      `${JSON.stringify({ lateness, cpuUs: cpu ? cpu.user + cpu.system : 0, stats: manager.loopStats })}\n`,
      () => process.exit(0),
    );
  });
});
void manager.start().then(() => process.stdout.write('ready\n'));
