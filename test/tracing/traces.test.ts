// OpenTelemetry traces from fire to handler, with real spans: the scheduler and the worker run as two
// processes, each exporting its spans with the SDK's in-memory exporter; the test joins them by trace.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { REDIS, REDIS_URL } from '../redis-url.js';
import { childFixture } from '../setup/child-fixtures.js';
import type { DumpedSpan } from './fixtures/otel.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = childFixture('test/tracing/fixtures/traced-process.ts');
const CONSUMER = 4;
const PRODUCER = 3;

interface Started {
  child: ChildProcess;
  file: string;
  output: string;
}

const started: Started[] = [];
let server: Server | undefined;

afterEach(async () => {
  for (const p of started.splice(0)) {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    rmSync(p.file, { force: true });
  }
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

function start(role: 'scheduler' | 'worker', env: Record<string, string>): Promise<Started> {
  const file = join(tmpdir(), `bb-spans-${role}-${randomUUID()}.json`);
  const child = spawn(process.execPath, [script, role], {
    cwd: root,
    env: { ...process.env, REDIS_URL, BB_TEST_SPANS: file, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const p: Started = { child, file, output: '' };
  started.push(p);
  child.stdout?.on('data', (d) => (p.output += d));
  child.stderr?.on('data', (d) => (p.output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${role} not ready in 30 s:\n${p.output}`)), 30_000);
    child.on('message', (m) => {
      if (m === 'ready') {
        clearTimeout(timer);
        resolve(p);
      }
    });
    child.on('exit', (code) => reject(new Error(`${role} exited (${code}):\n${p.output}`)));
  });
}

/** Ask a process to stop and write its spans; read them. */
async function spansOf(p: Started): Promise<DumpedSpan[]> {
  const exited = new Promise((resolve) => p.child.on('exit', resolve));
  p.child.send('dump');
  await exited;
  return JSON.parse(readFileSync(p.file, 'utf8')) as DumpedSpan[];
}

/** An HTTP endpoint that keeps the `traceparent` each request brings. */
async function endpoint(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(String(req.headers.traceparent ?? ''));
    res.end('ok');
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/`, seen };
}

async function run(env: Record<string, string> = {}) {
  const id = randomUUID().slice(0, 8);
  const prefix = `bbtest-${id}`;
  const queue = `bbq-${id}`;
  const http = await endpoint();
  const vars = { BB_TEST_PREFIX: prefix, BB_TEST_QUEUE: queue, BB_TEST_HTTP: http.url, ...env };
  const worker = await start('worker', vars);
  const scheduler = await start('scheduler', vars);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const fired = await spansOf(scheduler);
  const ran = await spansOf(worker);
  await cleanup(prefix, [queue, `${queue}-idle`]);
  return { fired, ran, http, queue, all: [...fired, ...ran] };
}

async function cleanup(prefix: string, queues: string[]) {
  for (const name of queues) {
    const q = new Queue(name, { connection: REDIS });
    await q.obliterate({ force: true });
    await q.close();
  }
  const redis = new Redis(REDIS);
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

const attr = (s: DumpedSpan, name: string) => s.attributes[name];
const childrenOf = (spans: DumpedSpan[], parent: DumpedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

describe('OpenTelemetry traces', () => {
  it('one trace per occurrence, from the scheduler process to the worker process and the handler', async () => {
    const { fired, ran, http, queue, all } = await run();
    const roots = fired.filter((s) => s.name === 'fire tick' && attr(s, 'bullbeat.outcome') === 'enqueued');
    expect(roots.length).toBeGreaterThanOrEqual(3);
    // one root per trace, one trace per occurrence
    expect(new Set(roots.map((r) => r.traceId)).size).toBe(roots.length);
    expect(new Set(roots.map((r) => attr(r, 'bullbeat.fire_at'))).size).toBe(roots.length);
    let complete = 0;
    for (const rootSpan of roots) {
      expect(rootSpan.parentSpanId).toBeUndefined();
      expect(rootSpan.attributes).toMatchObject({
        'bullbeat.schedule.id': 'tick',
        'bullbeat.schedule.name': 'tick',
        'messaging.destination.name': queue,
        'bullbeat.kind': 'scheduled',
        'bullbeat.replica': expect.stringMatching(/:\d+$/),
        'bullbeat.lateness_ms': expect.any(Number),
      });
      const trace = all.filter((s) => s.traceId === rootSpan.traceId);
      expect(trace.filter((s) => s.parentSpanId === undefined)).toEqual([rootSpan]);
      const [create, ...more] = childrenOf(trace, rootSpan);
      expect(more).toEqual([]);
      expect(create).toMatchObject({ name: `create ${queue}`, kind: PRODUCER, pid: rootSpan.pid });
      expect(create?.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'create',
      });
      const process = trace.find((s) => s.name === `process ${queue}`);
      // the last occurrences fired may not have run before the worker stopped, and on a loaded box one
      // may be skipped (overlap: the previous run still held the slot)
      if (!process || attr(process, 'bullbeat.outcome') !== 'succeeded') continue;
      complete++;
      expect(process).toMatchObject({ kind: CONSUMER, parentSpanId: create?.spanId });
      expect(process.pid).not.toBe(rootSpan.pid);
      expect(process.attributes).toMatchObject({
        'bullbeat.schedule.id': 'tick',
        'bullbeat.fire_at': attr(rootSpan, 'bullbeat.fire_at'),
        'bullbeat.attempt': 1,
        'bullbeat.outcome': 'succeeded',
        'messaging.message.id': attr(create as DumpedSpan, 'messaging.message.id'),
      });
      expect(String(attr(process, 'bullbeat.worker'))).toMatch(new RegExp(`:${process.pid}$`));
      expect(trace.find((s) => s.name === `wait ${queue}`)?.parentSpanId).toBe(create?.spanId);
      // the run: its steps and the middleware, the handler inside it, the handler's own span inside that
      const steps = childrenOf(trace, process).map((s) => s.name);
      expect(steps).toEqual(
        expect.arrayContaining(['bullbeat.start', 'middleware timeout', 'bullbeat.record']),
      );
      const timeout = trace.find((s) => s.name === 'middleware timeout') as DumpedSpan;
      const handler = childrenOf(trace, timeout);
      expect(handler.map((s) => s.name)).toEqual(['handler tick']);
      expect(childrenOf(trace, handler[0] as DumpedSpan).map((s) => s.name)).toEqual(['load rows']);
      // the handler's outgoing call carried the occurrence's trace
      expect(http.seen.some((tp) => tp.split('-')[1] === rootSpan.traceId)).toBe(true);
    }
    expect(complete).toBeGreaterThanOrEqual(2);

    // skipped by its overlap policy in the worker: the run's span says so, in the occurrence's trace
    const skipped = ran.filter(
      (s) =>
        s.name === `process ${queue}` &&
        attr(s, 'bullbeat.schedule.id') === 'slow' &&
        attr(s, 'bullbeat.outcome') === 'skipped',
    );
    expect(skipped.length).toBeGreaterThan(0);
    for (const s of skipped) {
      expect(s.attributes).toMatchObject({ 'bullbeat.reason': 'overlap', 'bullbeat.attempt': 1 });
      expect(fired.find((f) => f.traceId === s.traceId && f.name === 'fire slow')).toBeDefined();
    }
    // a run triggered now joins the trace of the caller's span
    const caller = fired.find((s) => s.name === 'caller request') as DumpedSpan;
    const manual = ran.find((s) => s.name === `process ${queue}` && s.parentSpanId === caller.spanId);
    expect(manual?.attributes).toMatchObject({ 'bullbeat.kind': 'manual', 'bullbeat.schedule.id': 'tick' });
    expect(manual?.traceId).toBe(caller.traceId);
    // coalesced in the scheduler (its previous job still waits): a span of its own with the reason
    const coalesced = fired.filter(
      (s) => s.name === 'fire idle' && attr(s, 'bullbeat.outcome') === 'skipped',
    );
    expect(coalesced.length).toBeGreaterThan(0);
    for (const s of coalesced) {
      expect(s.attributes).toMatchObject({
        'bullbeat.reason': 'coalesced',
        'bullbeat.coalesced.cause': 'consumer-behind',
        'bullbeat.fire_at': expect.any(Number),
      });
      expect(s.parentSpanId).toBeUndefined();
    }
    // each one has its span, those the claim script coalesced while the schedule was parked too: from the
    // first coalesced to the last, every period of the schedule (0.2 s)
    const ats = [...new Set(coalesced.map((s) => Number(attr(s, 'bullbeat.fire_at'))))].sort((a, b) => a - b);
    expect(ats.length).toBeGreaterThanOrEqual(3);
    expect(ats.slice(1).map((at, i) => at - ats[i]!)).toEqual(ats.slice(1).map(() => 200));
  }, 90_000);

  it('with BullMQ’s own telemetry on the worker, its process span is the run’s: none is duplicated', async () => {
    const { fired, ran, queue } = await run({ BB_TEST_BULLMQ_OTEL: '1' });
    const processes = ran.filter(
      (s) =>
        s.name === `process ${queue}` &&
        attr(s, 'bullbeat.schedule.id') === 'tick' &&
        attr(s, 'bullbeat.outcome') === 'succeeded' &&
        attr(s, 'bullbeat.kind') !== 'manual', // a triggerNow run's parent is its caller's span
    );
    expect(processes.length).toBeGreaterThanOrEqual(2);
    for (const p of processes) {
      // BullMQ's span, with bullbeat's attributes on it, a child of the scheduler's create span
      expect(p.attributes).toMatchObject({ 'bullmq.job.name': 'tick', 'bullbeat.outcome': 'succeeded' });
      const create = fired.find((s) => s.spanId === p.parentSpanId);
      expect(create?.name).toBe(`create ${queue}`);
      const inTrace = ran.filter((s) => s.traceId === p.traceId && s.kind === CONSUMER);
      expect(inTrace).toEqual([p]);
      expect(ran.find((s) => s.name === 'middleware timeout' && s.traceId === p.traceId)?.parentSpanId).toBe(
        p.spanId,
      );
    }
  }, 90_000);
});
