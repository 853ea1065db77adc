// What tracing costs when it is off (no tracer provider registered): the calls the fire loop and the
// worker runtime make for one occurrence, against the same loop without them, in one run. Reports CPU
// nanoseconds per occurrence (the median of several rounds); with `--provider` it registers the SDK
// (a provider with no span processor: spans are made, nothing is exported), to show the cost when on.
//
//   npm run build && node --import tsx bench/tracing-off.ts [--provider]
//
// It runs the built code (dist/), as the other benches do.
import * as occurrenceTrace from '../dist/src/tracing/fire-tracing.js';
import { traceRun, traceStep } from '../dist/src/tracing/run-tracing.js';
import { traceStage } from '../dist/src/tracing/stage-tracing.js';

if (process.argv.includes('--provider')) {
  const { context, propagation, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

const N = 200_000;
const ROUNDS = 7;
const def = { id: 'sched-1', name: 'report', queue: 'reports' };
const replica = 'host:1';

/** The fire loop's share of one occurrence (synchronous): its job options, with or without the calls. */
function fireBare(i: number): number {
  const opts = { attempts: 1, jobId: `${def.id}:${i}` };
  return opts.attempts;
}

function fireTraced(i: number): number {
  const item = {
    claim: {},
    claimedAt: i,
    plan: { enqueue: { fireAt: i, kind: 'scheduled' }, missed: [] },
    lateMs: 0,
    trace: undefined as occurrenceTrace.OccurrenceTrace | undefined,
  };
  const jobId = `${def.id}:${i}`;
  item.trace = occurrenceTrace.start(item, def, i, jobId, replica);
  const opts = occurrenceTrace.carry({ attempts: 1, jobId }, item.trace);
  occurrenceTrace.added([item], []);
  occurrenceTrace.completed(item, def, replica);
  return opts.attempts;
}

/** The worker runtime's share: a run awaited, with or without its span, steps and handler stage. */
async function runBare(i: number): Promise<number> {
  const stage = async (ctx: number) => ctx + 1;
  return stage(i);
}

async function runTraced(i: number): Promise<number> {
  const job = {
    id: `${def.id}:${i}`,
    name: def.name,
    queueName: def.queue,
    data: { scheduleId: def.id, fireAt: i },
    opts: {},
    attemptsMade: 0,
    timestamp: i,
  };
  return traceRun(job, async () => {
    await traceStep('bullbeat.start', async () => undefined);
    const stage = traceStage(async (ctx: number) => ctx + 1, 'handler report');
    const result = (await stage(i)) as number;
    await traceStep('bullbeat.record', async () => undefined);
    return result;
  });
}

/** CPU time (user + system, ns) per call of `fn` over N calls: less disturbed than wall time on a shared box. */
async function cpuPerCall(fn: (i: number) => number | Promise<number>): Promise<number> {
  const t0 = process.cpuUsage();
  let sum = 0;
  for (let i = 0; i < N; i++) sum += await fn(i);
  if (sum < 0) throw new Error('unreachable');
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / N;
}

function cpuPerCallSync(fn: (i: number) => number): number {
  const t0 = process.cpuUsage();
  let sum = 0;
  for (let i = 0; i < N; i++) sum += fn(i);
  if (sum < 0) throw new Error('unreachable');
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / N;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
const rows: [string, number[], number[]][] = [
  ['fire loop (start, carry, added, completed)', [], []],
  ['worker run (traceRun, 2 traceStep, traceStage)', [], []],
];
for (let r = 0; r < ROUNDS; r++) {
  rows[0]![1].push(cpuPerCallSync(fireBare));
  rows[0]![2].push(cpuPerCallSync(fireTraced));
  rows[1]![1].push(await cpuPerCall(runBare));
  rows[1]![2].push(await cpuPerCall(runTraced));
}
const mode = process.argv.includes('--provider') ? 'on (SDK, nothing exported)' : 'off (no tracer provider)';
console.log(`tracing ${mode}: CPU ns per occurrence, median of ${ROUNDS} rounds of ${N}`);
for (const [name, without, withCalls] of rows) {
  const [a, b] = [median(without), median(withCalls)];
  console.log(`  ${name}: ${a.toFixed(0)} without, ${b.toFixed(0)} with: +${(b - a).toFixed(0)} ns`);
}
