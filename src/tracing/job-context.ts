import {
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  trace,
} from '@opentelemetry/api';

/** The part of BullMQ's job options that carries a trace context (`JobsOptions.telemetry`). */
export interface TelemetryOptions {
  telemetry?: { metadata?: string; omitContext?: boolean };
}

/**
 * The job options of an occurrence with `span`'s context in `telemetry.metadata`, where BullMQ's own
 * telemetry (`bullmq-otel`) keeps it: the global propagator's carrier as JSON (W3C `traceparent` and
 * `tracestate` by default). A worker, bullbeat's or a plain BullMQ `Worker` with `telemetry`, takes its
 * parent from there; `Queue.addBulk` keeps metadata a job brings rather than putting its own. Options
 * that ask to omit the context (`telemetry.omitContext`) or bring their own metadata are left alone.
 */
export function withSpanContext<T extends object>(opts: T, span: Span): T {
  const telemetry = (opts as TelemetryOptions).telemetry;
  if (telemetry?.omitContext || telemetry?.metadata !== undefined) return opts;
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  if (Object.keys(carrier).length === 0) return opts; // no propagator registered: nothing to carry
  return { ...opts, telemetry: { ...telemetry, metadata: JSON.stringify(carrier) } };
}

/**
 * The context a job carries in `opts.telemetry.metadata` (see `withSpanContext`), on top of the active
 * one; undefined when it carries none, or none that can be read.
 */
export function contextOfJob(opts: TelemetryOptions | undefined): Context | undefined {
  const metadata = opts?.telemetry?.metadata;
  if (!metadata || opts?.telemetry?.omitContext) return undefined;
  let carrier: unknown;
  try {
    carrier = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (typeof carrier !== 'object' || carrier === null) return undefined;
  const extracted = propagation.extract(context.active(), carrier);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

/**
 * The job options of a run asked for now (`trigger`): the caller's active span's context, when there
 * is one, so that the run joins the trace of what asked for it (an instrumented HTTP request to the
 * dashboard's API, a span of the caller's own). Unchanged with none.
 */
export function withCallerContext<T extends object>(opts: T): T {
  const span = trace.getActiveSpan();
  return span && isSpanContextValid(span.spanContext()) ? withSpanContext(opts, span) : opts;
}
