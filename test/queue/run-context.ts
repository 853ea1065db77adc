import pino from 'pino';
import type { RunContext } from '../../src/queue/pipeline.js';

/** A ctx for unit tests of the pipeline and middleware. */
export function runContext(overrides: Partial<RunContext> = {}): RunContext {
  return {
    scheduleId: 'report',
    name: 'report',
    fireAt: 1_700_000_000_000,
    attempt: 1,
    kind: 'scheduled',
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
}
