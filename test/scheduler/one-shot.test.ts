import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { FiredEvent } from '../../src/scheduler/contract/scheduler-events.js';
import { JobStatus } from '../../src/store/forms/job-status.js';
import { DateTrigger } from '../../src/triggers/date-trigger.js';
import { testEnv } from './helpers.js';
import { ManualTime } from './manual-time.js';

/** A logger that keeps its lines, to check what a start said. */
function capture() {
  const lines: { msg: string; scheduleId?: string }[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) },
  );
  return { lines, logger };
}

/**
 * `new DateTrigger(Date.now() + ...)` in a jobs module computes a new instant each time a process
 * imports it. A code-defined one-shot that ran is never re-armed by a later start; a still-pending
 * one takes the new instant. On manual time (manual-time.ts): the fire loops, the prune of completed
 * schedules and Redis's clock as they read it move when the test moves them.
 */
describe('code-defined one-shots across restarts', () => {
  let env: ReturnType<typeof testEnv>;
  let time: ManualTime;
  afterEach(async () => {
    await time.stopAll();
    await env.cleanup();
  });

  async function manualTime(tag: string): Promise<void> {
    env = testEnv(tag);
    time = new ManualTime(env.redis, env.prefix);
    await time.start();
  }

  /** One "process start": a manager defining the reminder at import-time `now + inMs`. */
  async function start(inMs: number, logger = pino({ level: 'silent' })) {
    const m = env.manager({ logger, completedRetentionMs: 100 });
    time.attach(m);
    const fired: FiredEvent[] = [];
    m.on('fired', (e) => fired.push(e));
    m.schedule(function reminder() {}, new DateTrigger(time.now() + inMs), { id: 'reminder' });
    await m.start();
    return { m, fired };
  }

  it('a one-shot that ran is not fired again by the next start, which says so in its log', async () => {
    await manualTime('oneshot-ran');
    const first = await start(200);
    await time.advanceUntil(() => first.fired.length === 1, 5000);
    await time.stop(first.m);

    const { lines, logger } = capture();
    const second = await start(200, logger);
    await time.advance(1200); // well past the new instant, and prune cycles (every 100 ms)
    expect(second.fired).toEqual([]);
    const job = await second.m.get('reminder');
    expect(job?.status).toBe(JobStatus.COMPLETED);
    expect(job?.fired).toBe(1);
    expect(lines.some((l) => l.scheduleId === 'reminder' && /already ran; not re-armed/.test(l.msg))).toBe(
      true,
    );
  });

  it('a one-shot still pending takes the instant of the latest start', async () => {
    await manualTime('oneshot-pending');
    const first = await start(60_000);
    const before = (await first.m.get('reminder'))?.nextRunTime;
    await time.stop(first.m);
    const second = await start(300);
    const after = (await second.m.get('reminder'))?.nextRunTime;
    expect(after).toBeLessThan(before!);
    await time.advanceUntil(() => second.fired.length === 1, 5000);
    expect(second.fired[0]!.fireAt).toBe(after);
  });
});
