// A run's stop: the handler's signal and the runner's wait settle together, with the first reason; the
// runs under way are stopped by the shutdown (one listener for all) and each by its own job's signal.
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
  it('the shutdown stops every run under way, not one that ended; a run begun after it is stopped at once', () => {
    const shutdown = new AbortController();
    const live = new LiveRuns(shutdown.signal);
    const a = live.begin(undefined);
    const b = live.begin(undefined);
    const done = live.begin(undefined);
    done.end();
    const reason = new Error('grace period over');
    shutdown.abort(reason);
    expect(a.stop.signal.reason).toBe(reason);
    expect(b.stop.signal.reason).toBe(reason);
    expect(done.stop.stopped).toBe(false);
    expect(live.begin(undefined).stop.signal.reason).toBe(reason);
  });

  it("a job's own signal stops its run alone, until the run ends", () => {
    const live = new LiveRuns(new AbortController().signal);
    const job1 = new AbortController();
    const job2 = new AbortController();
    const one = live.begin(job1.signal);
    const two = live.begin(job2.signal);
    job1.abort('cancelled by the worker');
    expect(one.stop.signal.reason).toBe('cancelled by the worker');
    expect(two.stop.stopped).toBe(false);
    two.end();
    job2.abort('too late');
    expect(two.stop.stopped).toBe(false);
  });
});
