// A run's stop: the handler's signal and the runner's wait settle together, with the first reason; the
// runs under way are stopped by the shutdown (one listener for all) and each by a cancel of its job.
import { describe, expect, it } from 'vitest';
import { LiveRuns, RunStop } from '../../src/queue/run-stop.js';

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

  it('a signal first read after the stop is aborted already, with its reason; one read before aborts at the stop', () => {
    const late = new RunStop();
    const reason = new Error('lease lost');
    late.stop(reason);
    expect(late.stopped).toBe(true);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(reason);
    const early = new RunStop();
    const signal = early.signal;
    let heard: unknown;
    signal.addEventListener('abort', () => {
      heard = signal.reason;
    });
    early.stop(reason);
    early.stop(new Error('second'));
    expect(heard).toBe(reason);
    expect(early.signal).toBe(signal);
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

describe('LiveRuns', () => {
  const job = (queueName: string, id: string) => ({ queueName, id });

  it('the shutdown stops every run under way, not one that ended; a run begun after it is stopped at once', () => {
    const shutdown = new AbortController();
    const live = new LiveRuns(shutdown.signal);
    const a = live.begin(job('q', '1'));
    const b = live.begin(job('q', '2'));
    const done = live.begin(job('q', '3'));
    live.end(done);
    const reason = new Error('grace period over');
    shutdown.abort(reason);
    expect(a.signal.reason).toBe(reason);
    expect(b.signal.reason).toBe(reason);
    expect(done.stopped).toBe(false);
    expect(live.begin(job('q', '4')).signal.reason).toBe(reason);
  });

  it("a cancel stops its job's run alone (same id in another queue left), until the run ends", () => {
    const live = new LiveRuns(new AbortController().signal);
    const one = live.begin(job('q', '1'));
    const two = live.begin(job('q', '2'));
    const elsewhere = live.begin(job('other', '1'));
    expect(live.cancel('q', '1', 'cancelled by the worker')).toBe(true);
    expect(one.signal.reason).toBe('cancelled by the worker');
    expect(two.stopped).toBe(false);
    expect(elsewhere.stopped).toBe(false);
    live.end(two);
    expect(live.cancel('q', '2', 'too late')).toBe(false);
    expect(two.stopped).toBe(false);
  });

  it('a cancel without a reason aborts with an AbortError, as a job signal does; no id: every run of the queue', () => {
    const live = new LiveRuns(new AbortController().signal);
    const one = live.begin(job('q', '1'));
    const two = live.begin(job('q', '2'));
    const elsewhere = live.begin(job('other', '3'));
    expect(live.cancel('q', undefined)).toBe(true);
    expect((one.signal.reason as Error).name).toBe('AbortError');
    expect((two.signal.reason as Error).name).toBe('AbortError');
    expect(elsewhere.stopped).toBe(false);
  });
});
