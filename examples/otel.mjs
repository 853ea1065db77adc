// Starts OpenTelemetry's SDK before the application loads, so that bullbeat's spans (and your
// handlers') are exported over OTLP. Load it first in every scheduler and worker process:
//
//   OTEL_SERVICE_NAME=reports-worker OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \
//     NODE_OPTIONS="--import ./examples/otel.mjs" npx bullbeat worker dist/examples/jobs.js
//
// It needs `npm install @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-http` in your
// project (bullbeat depends on @opentelemetry/api only). See docs/tracing.md.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';

// The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), the SDK
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and the rest.
const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter() });
sdk.start();
