// With no tracer provider registered (this process registers none), tracing makes nothing: no job
// carries a context, no stage is wrapped, a run is called as it is.
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import * as occurrenceTrace from '../../src/tracing/fire-tracing.js';
import { traceRun, traceStep } from '../../src/tracing/run-tracing.js';
import { traceStage } from '../../src/tracing/stage-tracing.js';

const def = { id: 'sched', name: 'report', queue: 'reports' };

describe('tracing with no tracer provider', () => {
  it('the fire loop starts no trace and its jobs carry no context', () => {
    const item = {
      claim: {},
      claimedAt: 1000,
      plan: { enqueue: { fireAt: 1000, kind: 'scheduled' }, missed: [{ fireAt: 900, reason: 'misfire' }] },
    };
    const started = occurrenceTrace.start(item, def, 1000, 'sched:1000', 'host:1');
    expect(started).toBeUndefined();
    const opts = { attempts: 1, jobId: 'sched:1000' };
    expect(occurrenceTrace.carry(opts, started)).toBe(opts);
    expect(() => occurrenceTrace.completed(item, def, 'host:1')).not.toThrow();
  });

  it('a run is called as it is, with no span active, and stages are not wrapped', async () => {
    const job = {
      name: 'report',
      queueName: 'reports',
      data: { scheduleId: 'sched', fireAt: 1000 },
      opts: {},
      attemptsMade: 0,
      timestamp: 1000,
    };
    const result = await traceRun(job, async () => {
      expect(trace.getActiveSpan()).toBeUndefined();
      return traceStep('bullbeat.start', async () => 'ran');
    });
    expect(result).toBe('ran');
    const stage = async () => 1;
    expect(traceStage(stage, 'handler report')).toBe(stage);
  });
});
