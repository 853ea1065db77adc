import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from './tracer.js';

/**
 * The name a middleware's span takes: its factory's name without a `Middleware` suffix
 * (`timeoutMiddleware` and `timeoutMiddleware({ seconds: 5 })` are both `timeout`), or its place.
 */
export function middlewareName(factory: { name: string }, index: number): string {
  const name = factory.name.replace(/Middleware$/, '');
  return name === '' ? `#${index + 1}` : name;
}

/**
 * A pipeline stage that runs under a span of its own (`middleware <name>`, `handler <name>`), active
 * while the stage and what it calls run: a middleware's span holds the stages inside it, the
 * handler's holds the handler's own spans. Each call is a span (a retry middleware calling the
 * handler three times makes three). The stage is returned as it is when the run is not traced (no
 * recording span active while the pipeline is composed), so an untraced run pays nothing per call.
 */
export function traceStage<A extends unknown[]>(
  stage: (...args: A) => unknown,
  spanName: string,
): (...args: A) => unknown {
  if (!trace.getActiveSpan()?.isRecording()) return stage;
  return (...args: A) => {
    const span = tracer().startSpan(spanName);
    const run = async () => stage(...args);
    return context.with(trace.setSpan(context.active(), span), run).then(
      (result) => {
        span.end();
        return result;
      },
      (err: unknown) => {
        if (err instanceof Error) span.recordException(err);
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: err instanceof Error ? err.message : String(err),
        });
        span.end();
        throw err;
      },
    );
  };
}
