import { type Tracer, trace } from '@opentelemetry/api';

let cached: Tracer | undefined;

/**
 * bullbeat's tracer, from the global tracer provider. With none registered it is OpenTelemetry's
 * no-op tracer: every span it starts is the same non-recording span, and nothing is exported. The
 * proxy it returns follows a provider registered later, so a process may register one after import.
 */
export function tracer(): Tracer {
  cached ??= trace.getTracer('bullbeat');
  return cached;
}
