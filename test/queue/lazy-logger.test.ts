// A run's logger is made when first used: a run that logs nothing never makes its pino child, and one
// that logs writes with the run's bindings, through one child.
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChild, realLogger } from '../../src/queue/lazy-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const parent = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { parent, lines, childCalls: vi.spyOn(parent, 'child') };
}

describe('lazyChild', () => {
  it('makes no child until used', () => {
    const { parent, childCalls } = capture();
    lazyChild(parent, { scheduleId: 's1', attempt: 1 });
    expect(childCalls).not.toHaveBeenCalled();
  });

  it("logs with the run's bindings, through one child made at the first use", () => {
    const { parent, lines, childCalls } = capture();
    const logger = lazyChild(parent, { scheduleId: 's1', attempt: 2 });
    logger.warn({ live: 1 }, 'first');
    logger.info('second');
    expect(childCalls).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ scheduleId: 's1', attempt: 2, live: 1, msg: 'first', level: 40 }),
      expect.objectContaining({ scheduleId: 's1', attempt: 2, msg: 'second', level: 30 }),
    ]);
    expect(logger.level).toBe('info');
    logger.level = 'error';
    logger.warn('dropped');
    expect(lines).toHaveLength(2);
  });

  it('realLogger gives the child itself (the same one each time), and a plain logger as it is', () => {
    const { parent, lines } = capture();
    const logger = lazyChild(parent, { scheduleId: 's2' });
    const real = realLogger(logger);
    expect(realLogger(logger)).toBe(real);
    expect(real).not.toBe(parent);
    real.info('direct');
    expect(lines).toEqual([expect.objectContaining({ scheduleId: 's2', msg: 'direct' })]);
    expect(realLogger(parent)).toBe(parent);
  });
});
