// A success written behind the burst (`RunRecorder.holdFinish`) is written after its run's span ended;
// its `bullbeat.record` step is still a child of that run's `process` span, in the occurrence's trace.
// In process: the SDK as a user sets it up, exporting to memory. The hold is off by default
// (`tuning.outcomeHoldMs`): turned on here.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { burstSettled, JOBS, startBurst } from '../queue/held-burst.js';
import { TestBed } from '../queue/helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const bed = new TestBed();
afterAll(() => bed.cleanup());

describe('an outcome held behind a burst, traced', () => {
  it('its record step is a child of its run’s process span, written after that span ended', async () => {
    const burst = await startBurst(bed, 1000);
    try {
      await burstSettled(bed, burst);
    } finally {
      await burst.handle.close({ graceMs: 1000 });
    }
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const runs = spans.filter((s) => s.name === `process ${bed.queueName}`);
    expect(runs).toHaveLength(JOBS);
    let afterTheRun = 0;
    for (const run of runs) {
      const steps = spans.filter((s) => s.parentSpanContext?.spanId === run.spanContext().spanId);
      const record = steps.filter((s) => s.name === 'bullbeat.record');
      expect(record, String(run.attributes['bullbeat.schedule.id'])).toHaveLength(1);
      const ended = (t: [number, number]) => t[0] * 1e9 + t[1];
      if (ended(record[0]!.startTime) >= ended(run.endTime)) afterTheRun++;
    }
    // some were held behind the burst (written after their run's span ended)
    expect(afterTheRun).toBeGreaterThan(0);
  });
});
