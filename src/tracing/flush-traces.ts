import { trace } from '@opentelemetry/api';

/** What a registered SDK tracer provider offers (the global one is a proxy in front of it). */
interface Flushable {
  getDelegate?: () => { forceFlush?: () => Promise<void> };
  forceFlush?: () => Promise<void>;
}

/**
 * Export the spans a registered tracer provider still holds (its batch processor sends them every
 * few seconds), waiting at most `timeoutMs`: the `bullbeat` executable calls it before it exits, so
 * that the spans of a scheduler's or worker's last seconds are not lost. Nothing with no provider.
 */
export async function flushTraces(timeoutMs = 5000): Promise<void> {
  const global = trace.getTracerProvider() as Flushable;
  const provider = global.getDelegate?.() ?? global;
  if (typeof provider.forceFlush !== 'function') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    provider.forceFlush().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}
