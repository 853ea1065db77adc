import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AlertStore, IncidentCause, Keys, ScheduleStore } from '../../store/index.js';
import {
  decodeDefinition,
  incidentSlot,
  nextOccurrences,
  readHistories,
  type StoredExpectations,
  spreadOffsetMs,
  watches,
  withDefaults,
} from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import { triggerTimezone } from '../../triggers/trigger-timezone.js';
import { withoutJitter } from '../../triggers/without-jitter.js';
import { type AlertTimers, processTimers, repeatEvery } from './alert-timers.js';
import { breaches, resolvedWhy, type ScheduleFacts } from './incident-rules.js';

/** What the watch needs from its replica. */
export interface IncidentWatchDeps {
  redis: Redis;
  keys: Keys;
  store: ScheduleStore;
  alerts: AlertStore;
  /** The deployment's expectations (the manager's `expect`), under each schedule's own. */
  defaults: StoredExpectations | undefined;
  /** Every notifier this replica has: where an incident goes when neither the schedule nor the deployment names any. */
  notifiers: readonly string[];
  queue(name: string): Queue;
  logger: Logger;
  replicaId: string;
  /** The timers its checks run on (default: the process's; a manual clock's in tests). */
  timers?: AlertTimers | undefined;
  /** Called with each incident opened or resolved (events, metrics). */
  onChange?: (change: {
    op: 'opened' | 'resolved';
    id: string;
    cause: IncidentCause;
    scheduleId: string;
  }) => void;
}

/** How often the expectations are checked (ms), by one replica at a time. */
export const CHECK_EVERY_MS = 1000;
/** How often the list of schedules that expect something is read again, and queues' consumers counted. */
const REFRESH_EVERY_MS = 5000;

interface Watched {
  id: string;
  queue: string;
  zone: string;
  expect: StoredExpectations;
  /** Its trigger without jitter, to know when an occurrence is expected (a stored trigger only). */
  trigger: Trigger | undefined;
  /** How long past its fire time an occurrence may be enqueued on purpose (spread offset, jitter). */
  graceMs: number;
  startAt: number | undefined;
  endAt: number | undefined;
}

/**
 * The expectations of the schedules that expect something, checked once a second by one process of the
 * fleet (whichever takes the turn: `checkTurn`): it reads their records, opens an incident for each breach
 * and resolves the ones that ended. Whether an incident opens is decided in Redis (`incident-7`), so two
 * replicas checking at once, or one dying mid-check, never open or resolve one twice.
 */
export class IncidentWatch {
  private stopTimer: (() => void) | undefined;
  private checking: Promise<void> | undefined;
  private watched: Watched[] = [];
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private consumed = new Map<string, boolean>();
  private readonly unconsumedReadings = new Map<string, number>();

  constructor(private readonly deps: IncidentWatchDeps) {}

  start(): void {
    if (this.stopTimer) return;
    const tick = () => {
      this.checking ??= this.tick()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'bullbeat: expectations: check failed'))
        .finally(() => {
          this.checking = undefined;
        });
    };
    this.stopTimer = repeatEvery(this.deps.timers ?? processTimers, CHECK_EVERY_MS, tick);
    // the first look at once, not a period later: a process just started (a replica replacing a dead
    // one) can take the turn as soon as it runs, which shortens the stretches without a check while
    // replicas come and go
    tick();
  }

  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = undefined;
    await this.checking;
  }

  private async tick(): Promise<void> {
    const began = performance.now();
    // what changes slowly (the schedules watched, their queues' consumers) is read before the turn is
    // taken: a replica just started (its first read opens a queue connection, up to 2 s) holds no turn
    // while it reads, so the others check meanwhile
    const laps: Record<string, number> = {};
    const now = await this.deps.store.time();
    if (now - this.refreshedAt >= REFRESH_EVERY_MS) await this.refresh(now);
    laps.refresh = Math.round(performance.now() - began);
    if (!(await this.deps.alerts.checkTurn(CHECK_EVERY_MS - 100, this.deps.replicaId))) return;
    laps.turn = Math.round(performance.now() - began) - laps.refresh;
    await this.check(laps);
    const took = performance.now() - began;
    this.deps.logger.debug({ tookMs: Math.round(took), laps }, 'bullbeat: expectations: checked');
    if (took > CHECK_EVERY_MS) {
      this.deps.logger.warn({ tookMs: Math.round(took), laps }, 'bullbeat: expectations: slow check');
    }
  }

  /**
   * One check of the expectations (the turn aside): it reads the state rows, records and next times of
   * the schedules watched (the expectations index: `refresh`) and of those with an incident open, never
   * every schedule's, so its cost follows the schedules that expect something, not the deployment's size.
   */
  async check(laps: Record<string, number> = {}): Promise<void> {
    const { store, alerts } = this.deps;
    let mark = performance.now();
    const lap = (step: string) => {
      const at = performance.now();
      laps[step] = Math.round(at - mark);
      mark = at;
    };
    const now = await store.time();
    lap('time');
    if (now - this.refreshedAt >= REFRESH_EVERY_MS) {
      await this.refresh(now);
      lap('refresh');
    }
    // only what can change an incident: the schedules watched, and those with an incident open (a
    // schedule no longer watched resolves it); never every schedule's state
    const open = await alerts.openSlots();
    const ids = new Set(this.watched.map((w) => w.id));
    for (const slot of open.keys()) {
      const { cause, scheduleId } = slotParts(slot);
      if (cause !== 'no-scheduler') ids.add(scheduleId);
    }
    const states = await store.statesOf([...ids]);
    lap('states');
    const active = this.watched.filter((w) => states.get(w.id)?.status === 'a');
    const limit = Math.max(10, ...active.map((w) => (w.expect.failuresInARow ?? 0) + 5));
    const histories = await readHistories(
      this.deps.redis,
      this.deps.keys,
      active.map((w) => w.id),
      limit,
    );
    lap('records');
    const timed = active.filter((w) => w.expect.startedWithinMs !== undefined && w.trigger);
    const next = await nextOccurrences(
      this.deps.redis,
      this.deps.keys,
      timed.map((w) => w.id),
    );
    lap('next');
    const seen = new Set<string>();
    for (const [i, w] of active.entries()) {
      const records = histories[i] ?? [];
      const facts: ScheduleFacts = {
        scheduleId: w.id,
        queue: w.queue,
        expect: w.expect,
        zone: w.zone,
        records,
        now,
        queueConsumed: this.consumed.get(w.queue),
        expectedFire: expectedFire(w, states.get(w.id)?.lastFireAt ?? null, records, next.get(w.id)),
        enqueueGraceMs: w.graceMs,
      };
      for (const [cause, breach] of breaches(facts)) {
        const slot = incidentSlot(cause, w.id);
        seen.add(slot);
        if (breach && !open.has(slot)) {
          const notify = w.expect.notify ?? this.deps.notifiers;
          const { result, id } = await alerts.open(
            { scheduleId: w.id, cause, occurrence: breach.occurrence, why: breach.why, queue: w.queue },
            notify,
          );
          if (result === 'opened') {
            this.deps.logger.warn(
              { incident: id, scheduleId: w.id, cause, why: breach.why },
              'bullbeat: incident opened',
            );
            this.deps.onChange?.({ op: 'opened', id, cause, scheduleId: w.id });
          }
        } else if (!breach && open.has(slot)) {
          await this.resolve(cause, w.id, resolvedWhy(cause, facts));
        }
      }
    }
    lap('decide');
    // an open incident of a schedule no longer checked (paused, removed, its expectation dropped) ends
    for (const slot of open.keys()) {
      if (seen.has(slot)) continue;
      const { cause, scheduleId: id } = slotParts(slot);
      if (cause === 'no-scheduler') continue;
      const status = states.get(id)?.status;
      const why =
        status === undefined
          ? 'the schedule was removed'
          : status !== 'a'
            ? 'the schedule is no longer active'
            : `the schedule no longer expects what ${cause} checks`;
      await this.resolve(cause, id, why);
    }
  }

  private async resolve(cause: IncidentCause, scheduleId: string, why: string): Promise<void> {
    const id = await this.deps.alerts.resolve(cause, scheduleId, why);
    if (id === undefined) return;
    this.deps.logger.info({ incident: id, scheduleId, cause, why }, 'bullbeat: incident resolved');
    this.deps.onChange?.({ op: 'resolved', id, cause, scheduleId });
  }

  /**
   * Read again which schedules expect something (the expectations index's definitions; every definition
   * when the deployment's own expectations apply to all), and which of their queues have a consumer.
   */
  private async refresh(now: number): Promise<void> {
    const rows = await this.deps.alerts.watchedDefinitions(this.deps.keys, watches(this.deps.defaults));
    const watched: Watched[] = [];
    for (const [id, json] of rows) {
      const { def, problem } = decodeDefinition(id, json);
      const expect = withDefaults(def.expect, this.deps.defaults);
      if (problem || !watches(expect)) continue;
      const jitterS = (def.trigger as { jitter?: unknown }).jitter;
      watched.push({
        id,
        queue: def.queue,
        zone: triggerTimezone(def.trigger) ?? 'UTC',
        expect,
        trigger: storedTrigger(def.trigger),
        graceMs: spreadOffsetMs(id, def.spreadMs) + (typeof jitterS === 'number' ? jitterS * 1000 : 0),
        startAt: def.startAt,
        endAt: def.endAt,
      });
    }
    this.watched = watched;
    const queues = new Set(watched.map((w) => w.queue));
    const consumed = new Map<string, boolean>();
    await Promise.all(
      [...queues].map(async (q) => {
        const count = await withDeadline(this.deps.queue(q).getWorkersCount(), 2000);
        if (count === undefined) return; // unknown: no incident either way
        // a queue counts as unconsumed on the second reading in a row (a worker reconnecting is not one)
        const none = count === 0;
        const before = this.unconsumedReadings.get(q) ?? 0;
        this.unconsumedReadings.set(q, none ? before + 1 : 0);
        consumed.set(q, !(none && before >= 1));
      }),
    );
    this.consumed = consumed;
    this.refreshedAt = now;
  }
}

/** The cause and schedule of an incident's slot (`incidentSlot`: `<cause>|<schedule id>`). */
function slotParts(slot: string): { cause: IncidentCause; scheduleId: string } {
  const at = slot.indexOf('|');
  return { cause: slot.slice(0, at) as IncidentCause, scheduleId: slot.slice(at + 1) };
}

/** A stored trigger without its jitter; undefined for a custom one (code's) or one that cannot be read. */
function storedTrigger(json: Parameters<typeof triggerTimezone>[0]): Trigger | undefined {
  if (json.type === 'custom') return undefined;
  try {
    return triggerFromJSON(withoutJitter(json as Parameters<typeof withoutJitter>[0]));
  } catch {
    return undefined;
  }
}

/**
 * The fire time of the occurrence its trigger gives after the newest one fired (`lastFireAt`) or
 * recorded; undefined when none is expected, when the trigger cannot say (a calendar it cannot read
 * here), or when the scheduler already stands past it (`next`: its due time or claim is later, as
 * after a resume that skipped the paused span). An occurrence never enqueued is judged against it.
 */
function expectedFire(
  w: Watched,
  lastFireAt: number | null,
  records: readonly { fireAt: number; kind: string }[],
  next: number | undefined,
): number | undefined {
  if (!w.trigger) return undefined;
  const newest = records.find((r) => r.kind === 'scheduled' || r.kind === 'catch-up')?.fireAt;
  const base = Math.max(lastFireAt ?? Number.NEGATIVE_INFINITY, newest ?? Number.NEGATIVE_INFINITY);
  if (!Number.isFinite(base)) return undefined; // never fired: the first occurrence has its own planning
  let e: number | null;
  try {
    e = w.trigger.nextFire(base, base);
  } catch {
    return undefined;
  }
  if (e === null || !Number.isFinite(e) || e <= base) return undefined;
  if (w.startAt !== undefined && e < w.startAt) return undefined;
  if (w.endAt !== undefined && e > w.endAt) return undefined;
  if (next !== undefined && next > e + w.graceMs) return undefined;
  return e;
}

/** `p`'s value, or undefined when it fails or takes longer than `ms`. */
async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
