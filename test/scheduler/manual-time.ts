import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { internalsOf } from '../../src/scheduler/index.js';
import type { SchedulerManager } from '../../src/scheduler/manager/scheduler-manager.js';
import { setScriptClock } from '../../src/store/scripts/script-layout.js';
import { defineStoreScripts, storeScripts } from '../../src/store/scripts/scripts.js';
import { ManualClock } from '../queue/manual-clock.js';
import { waitUntil } from '../wait-until.js';
import { redisNow } from './helpers.js';

/** The body of `redisNow()` (src/store/scripts/lua/includes/now.lua): Redis TIME in ms. */
const TIME_BODY = `local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Time that moves only when the test moves it, for the managers attached to it: their fire loops run
 * on a manual clock (`hooks.clock`), and Redis's clock as they see it (the `redisNow()` of their
 * scripts, the TIME they read) stands still at its reading when `start()` was called, plus what the
 * test advanced since. Redis judges due times and lease lapses by that clock, so claiming, the
 * claim horizon, firing, misfires and take-overs are tested without sleeping through them, and
 * exactly: a fire time is met to the millisecond of the manual clock.
 *
 * The claim and lease scripts take it as their `clock ms` ARGV (`setScriptClock`); the other scripts
 * that read TIME are patched to read it from a key of the test's prefix (a standalone Redis lets a script
 * read a key it was not given); everything else (BullMQ's job stamps, key expiries) keeps real time.
 * BullMQ's delayed set can follow it too (`followDelayed`).
 */
export class ManualTime {
  readonly clock: ManualClock;
  /** Redis time (ms) at manual time 0. */
  private origin = 0;
  private readonly key: string;
  /** The managers on this clock whose loops are waited for after each step (see `advance`). */
  private readonly attached: SchedulerManager[] = [];
  /** Every manager attached, with its clock (see `stopAll`). */
  private readonly all: { m: SchedulerManager; clock: ManualClock }[] = [];
  /** Managers whose fire loop a test holds in a hook (see `hold`): their loop's in-flight count then. */
  private readonly held = new Map<SchedulerManager, number>();
  /** Queues whose delayed jobs are promoted on this time (see `followDelayed`). */
  private readonly delayed: Queue[] = [];

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `{${prefix}}:test-clock`;
    this.clock = new ManualClock(0, (now) => this.publish(now));
  }

  /** Stop Redis's clock at its reading now (as the managers attached later see it); returns it. */
  async start(): Promise<number> {
    this.origin = await redisNow(this.redis);
    await this.publish(this.clock.now());
    return this.origin;
  }

  /** Redis time now, as the attached managers see it (ms). */
  now(): number {
    return this.origin + this.clock.now();
  }

  /**
   * Put `m` on this time: its fire loop's timers on `clock` (this time's own by default; a clock never
   * advanced stalls its loop), and Redis's clock as it reads it on this time. Call before `m.start()`.
   */
  attach(m: SchedulerManager, clock: ManualClock = this.clock): void {
    m.hooks = { ...m.hooks, clock };
    if (clock === this.clock) this.attached.push(m);
    this.all.push({ m, clock });
    // the manager's client, and the alerts' own (the expectations watch, the outbox, the heartbeat:
    // their timers are on `clock` too, `hooks.clock`)
    this.patch(internalsOf(m).redis);
    if (internalsOf(m).options.role !== 'client') this.patch(internalsOf(m).alertsRedis);
  }

  /** Redis's clock as `redis` reads it, on this time: its scripts' TIME, their `clock ms` ARGV, and TIME. */
  private patch(redis: Redis): void {
    defineStoreScripts(redis);
    if (!storeScripts().some((s) => s.lua.includes(TIME_BODY))) {
      throw new Error('manual-time: no store script reads TIME as includes/now.lua did; update TIME_BODY');
    }
    for (const s of storeScripts()) {
      if (!s.lua.includes(TIME_BODY)) continue;
      const lua = s.lua.replace(TIME_BODY, `return tonumber(redis.call('GET', '${this.key}'))`);
      redis.defineCommand(
        s.command,
        s.numberOfKeys === undefined ? { lua } : { numberOfKeys: s.numberOfKeys, lua },
      );
    }
    // the claim and lease scripts take the time as their `clock ms` ARGV (the seam production leaves
    // empty); the other scripts that read TIME are patched above to read the test's key
    setScriptClock(redis, () => this.now());
    const time = async (): Promise<[string, string]> => {
      const ms = this.now();
      return [String(Math.floor(ms / 1000)), String((ms % 1000) * 1000)];
    };
    (redis as unknown as { time: typeof time }).time = time;
  }

  /**
   * Move time forward by `ms`: each timer due on the way goes off at its instant, and the attached
   * managers' fire loops finish what it started (claims, enqueues, completions: real Redis round
   * trips) before the next one.
   */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now() + ms;
    for (;;) {
      await this.quiet();
      const next = this.clock.nextAt;
      if (this.clock.now() === target && (next === undefined || next > target)) return;
      const to = next === undefined || next > target ? target : next;
      await this.clock.advance(to - this.clock.now());
    }
  }

  /** Advance in steps of `stepMs` until `check` holds (at most `maxMs`); the time it took. */
  async advanceUntil(check: () => boolean | Promise<boolean>, maxMs: number, stepMs = 10): Promise<number> {
    const from = this.clock.now();
    while (!(await check())) {
      if (this.clock.now() - from >= maxMs) throw new Error(`not reached within ${maxMs} ms of manual time`);
      await this.advance(stepMs);
    }
    return this.clock.now() - from;
  }

  /**
   * Hold `m`'s fire loop in one of its hooks until `released` settles, time still movable meanwhile:
   * `advance` waits for the rest of `m`'s loop, not for the held work (what was in flight when the
   * hold began). Without it, a hook that awaits the test (`afterClaim: () => released`) keeps the loop
   * busy, and `advance` waits on it for good. Call it from the hook: `await time.hold(m, released)`.
   */
  async hold<T>(m: SchedulerManager, released: Promise<T>): Promise<T> {
    this.held.set(m, internalsOf(m).loopFootprint?.inFlight ?? 0);
    try {
      return await released;
    } finally {
      this.held.delete(m);
    }
  }

  /**
   * Promote `queue`'s delayed jobs on this time: as time reaches a job's instant (its score in BullMQ's
   * delayed set), BullMQ's own `promote` moves it to the wait list, before the timers due then go off.
   * BullMQ's workers promote on their host's clock (the timestamp they pass to `moveToActive`), which
   * this time runs ahead of once advanced: a job staged on this time (a delayed job due at a fire time
   * of the attached managers) then runs when the test's time reaches it, and not before.
   */
  followDelayed(queue: Queue): void {
    this.delayed.push(queue);
  }

  /** Stop `m`, moving time on while it enqueues and completes what it holds. */
  async stop(m: SchedulerManager, clock: ManualClock = this.clock): Promise<void> {
    let stopped = false;
    const done = m.stop().finally(() => {
      stopped = true;
    });
    while (!stopped) {
      if (clock === this.clock) await this.advance(10);
      else await clock.advance(10);
      await new Promise((r) => setImmediate(r));
    }
    await done;
  }

  /** Stop every manager attached (a test's clean-up: a loop on a manual clock stops only as it moves). */
  async stopAll(): Promise<void> {
    for (const { m, clock } of this.all) await this.stop(m, clock);
  }

  /** The attached fire loops have nothing in flight (real round trips to Redis finish). */
  private async quiet(): Promise<void> {
    await waitUntil(
      () =>
        this.attached.every((m) => (internalsOf(m).loopFootprint?.inFlight ?? 0) <= (this.held.get(m) ?? 0)),
      10_000,
      { stepMs: 1 },
    );
  }

  private async publish(now: number): Promise<void> {
    await this.redis.set(this.key, String(this.origin + now));
    for (const q of this.delayed) await this.promoteDue(q);
  }

  /** Promote `queue`'s delayed jobs due by now (BullMQ scores a delayed job at `ms * 4096 + counter`). */
  private async promoteDue(queue: Queue): Promise<void> {
    const key = queue.keys.delayed as string;
    const due = await this.redis.zrangebyscore(key, 0, (this.now() + 1) * 4096 - 1);
    for (const id of due) {
      const job = await queue.getJob(id);
      // gone meanwhile (unstaged, removed): nothing to promote
      await job?.promote().catch(async (err: unknown) => {
        if ((await this.redis.zscore(key, id)) !== null) throw err;
      });
    }
  }
}
