import { hostname } from 'node:os';
import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { ATTR, SYSTEM } from './attributes.js';
import { contextOfJob, type TelemetryOptions } from './job-context.js';
import { tracer } from './tracer.js';

/** What the worker's span reads of a BullMQ job. */
export interface TracedJob {
  id?: string;
  name: string;
  queueName: string;
  data: unknown;
  opts: TelemetryOptions;
  attemptsMade: number;
  attemptsStarted?: number;
  timestamp: number;
  delay?: number;
  processedOn?: number;
}

/** The job data fields the span names (an occurrence's payload; any other job has none of them). */
interface OccurrenceFields {
  scheduleId?: string;
  fireAt?: number;
  kind?: string;
  run?: { timeoutMs?: number };
}

const WORKER = `${hostname()}:${process.pid}`;

/**
 * Run one job of an occurrence (`run`: the runner's processing of it) under its `process <queue>`
 * span, a child of the scheduler's `create` span when the job carries its context, and active while
 * the handler runs, so that the handler's own spans (an outgoing HTTP call, a query) join the
 * occurrence's trace. A first delivery also gets `wait <queue>`, its time in the queue.
 *
 * With BullMQ's own telemetry on the worker (`bullmq-otel`), BullMQ's `process` span of this job is
 * the active span already, in the same trace: bullbeat adds its attributes to it rather than making a
 * second one. With no tracer provider, `run` is called as it is.
 */
export function traceRun<T>(job: TracedJob, run: () => Promise<T>): Promise<T> {
  const parent = contextOfJob(job.opts);
  const parentTrace = parent && trace.getSpanContext(parent)?.traceId;
  const active = trace.getActiveSpan();
  const bullmqSpan =
    parentTrace !== undefined && active?.isRecording() && active.spanContext().traceId === parentTrace
      ? active
      : undefined;
  // A job that carries no context starts a trace of its own (never the worker's ambient span's).
  const span =
    bullmqSpan ??
    tracer().startSpan(`process ${job.queueName}`, { kind: SpanKind.CONSUMER, root: !parent }, parent);
  if (!span.isRecording()) {
    span.end();
    return run();
  }
  const now = Date.now();
  const data = (job.data ?? {}) as OccurrenceFields;
  span.setAttributes({
    [ATTR.system]: SYSTEM,
    [ATTR.operationType]: 'process',
    [ATTR.operationName]: 'process',
    [ATTR.destination]: job.queueName,
    [ATTR.clientId]: WORKER,
    [ATTR.worker]: WORKER,
    [ATTR.scheduleName]: job.name,
    [ATTR.attempt]: job.attemptsMade + 1,
    ...(job.id !== undefined && { [ATTR.messageId]: job.id }),
    ...(data.scheduleId !== undefined && { [ATTR.scheduleId]: data.scheduleId }),
    ...(data.kind !== undefined && { [ATTR.kind]: data.kind }),
    ...(data.fireAt !== undefined && { [ATTR.fireAt]: data.fireAt, [ATTR.latenessMs]: now - data.fireAt }),
    ...(data.run?.timeoutMs && { [ATTR.timeoutMs]: data.run.timeoutMs }),
  });
  if (job.attemptsMade === 0 && (job.attemptsStarted ?? 0) <= 1) traceWait(job, parent, now);
  const running = bullmqSpan ? context.active() : trace.setSpan(parent ?? ROOT_CONTEXT, span);
  return context.with(running, run).then(
    (result) => {
      outcomeOf(span, result);
      if (!bullmqSpan) span.end();
      return result;
    },
    (err: unknown) => {
      if (isDelayed(err)) {
        // it waits for its run slot in BullMQ's delayed set: not a failure
        span.setAttributes({ [ATTR.outcome]: 'delayed', [ATTR.reason]: 'run slot busy' });
      } else {
        span.setAttribute(ATTR.outcome, 'failed');
        if (err instanceof Error) span.recordException(err);
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: err instanceof Error ? err.message : String(err),
        });
      }
      if (!bullmqSpan) span.end();
      throw err;
    },
  );
}

/**
 * `wait <queue>`: from the moment the job could be taken (added, or its delay over) to the moment a
 * worker took it. Its parent is the job's context (the scheduler's `create` span), beside `process`.
 */
function traceWait(job: TracedJob, parent: Context | undefined, now: number): void {
  const from = job.timestamp + (job.delay ?? 0);
  const to = Math.max(from, job.processedOn ?? now);
  const wait = tracer().startSpan(
    `wait ${job.queueName}`,
    { startTime: from, attributes: { [ATTR.destination]: job.queueName } },
    parent,
  );
  wait.end(to);
}

/** The run's outcome on its span: a result that says it was skipped or cancelled, else succeeded. */
function outcomeOf(span: Span, result: unknown): void {
  const r = result as { skipped?: unknown; cancelled?: unknown } | null | undefined;
  if (r && typeof r === 'object' && typeof r.skipped === 'string') {
    span.setAttributes({ [ATTR.outcome]: 'skipped', [ATTR.reason]: r.skipped });
  } else if (r && typeof r === 'object' && r.cancelled === true) {
    span.setAttributes({ [ATTR.outcome]: 'cancelled', [ATTR.reason]: 'cancelOther' });
  } else {
    span.setAttribute(ATTR.outcome, 'succeeded');
  }
}

function isDelayed(err: unknown): boolean {
  return err instanceof Error && err.name === 'DelayedError';
}

/**
 * Run `fn` under a span named `name`, a child of the active span, when that one records (the run is
 * traced); else call `fn` as it is. For the runner's steps: taking the run slot, writing the outcome.
 */
export function traceStep<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const active = trace.getActiveSpan();
  // a step written after its run's span ended (an outcome held behind a burst: `laterInThisTrace`)
  // is still a child of it, when the span was sampled
  if (!active || (!active.isRecording() && !sampled(active))) return fn();
  const span = tracer().startSpan(name);
  return context.with(trace.setSpan(context.active(), span), fn).then(
    (result) => {
      span.end();
      return result;
    },
    (err: unknown) => {
      if (err instanceof Error) span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw err;
    },
  );
}

/**
 * `target` with the methods named in `spans` run under `traceStep` (each call a span of that name when
 * the run is traced): the runner's store steps, taking the run slot and writing the outcome, without
 * a change at each call. The methods are replaced on the instance itself, so `this` stays `target`.
 */
export function traceSteps<T extends object>(target: T, spans: { [K in keyof T]?: string }): T {
  const methods = target as Record<string, unknown>;
  for (const [key, name] of Object.entries(spans) as [string, string][]) {
    const original = methods[key];
    if (typeof original !== 'function') continue;
    methods[key] = (...args: unknown[]) =>
      traceStep(name, () => (original as (...a: unknown[]) => Promise<unknown>).apply(target, args));
  }
  return target;
}

function sampled(span: Span): boolean {
  return (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}

/**
 * The trace active now, to run a step in later (`traceStep` inside it is a child of the span active
 * now, even once that span has ended): an outcome written behind a burst shows in its run's trace.
 */
export function laterInThisTrace(): <T>(fn: () => Promise<T>) => Promise<T> {
  const saved = context.active();
  return (fn) => context.with(saved, fn);
}
