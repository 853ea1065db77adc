// OpenTelemetry traces of occurrences, from the claim to the handler: what the rest of bullbeat
// outside the fire loop and the worker runtime uses (see docs/tracing.md).
export { ATTR as TRACE_ATTRIBUTES } from './attributes.js';
export { flushTraces } from './flush-traces.js';
