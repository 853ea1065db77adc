// A run's stop: the handler's signal and the runner's wait settle together, with the first reason.
import { describe, expect, it } from 'vitest';
import { RunStop } from '../../src/queue/run-stop.js';

describe('RunStop', () => {
  it('race settles with the run while nothing stops it', async () => {
    const stop = new RunStop();
    await expect(stop.race(Promise.resolve(42))).resolves.toBe(42);
    await expect(stop.race(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(stop.signal.aborted).toBe(false);
  });

  it('a stop rejects the race at once, even when the handler never settles, and aborts its signal', async () => {
    const stop = new RunStop();
    const never = new Promise<never>(() => {});
    const raced = stop.race(never);
    const reason = new Error('shutdown');
    stop.stop(reason);
    await expect(raced).rejects.toBe(reason);
    expect(stop.signal.aborted).toBe(true);
    expect(stop.signal.reason).toBe(reason);
  });

  it('the first reason wins; a run stopped before its race rejects with it', async () => {
    const stop = new RunStop();
    const first = new Error('lease lost');
    stop.stop(first);
    stop.stop(new Error('shutdown'));
    expect(stop.stopped).toBe(true);
    expect(stop.signal.reason).toBe(first);
    let settled = false;
    const late = Promise.reject(new Error('the handler failed later'));
    await expect(
      stop.race(late).finally(() => {
        settled = true;
      }),
    ).rejects.toBe(first);
    expect(settled).toBe(true);
  });
});
