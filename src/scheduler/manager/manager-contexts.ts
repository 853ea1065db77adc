import type { EventEmitter } from 'node:events';
import type { JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Keys, ScheduleDefinition } from '../../store/index.js';
import {
  AlertStore,
  BackfillLedger,
  CalendarBook,
  CalendarStore,
  PauseNotes,
  publishWake,
} from '../../store/index.js';
import type { Trigger } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { BackfillContext, OwedRunsContext } from '../backfill/index.js';
import {
  inPlanMode,
  type ResolvedManagerOptions,
  ScheduledJob,
  type ScheduledJobHost,
  type SchedulerEvents,
} from '../contract/index.js';
import { type FireHooks, monotonicClock } from '../fire/index.js';
import type { ForeignOutcomesManager } from '../outcomes/index.js';
import { Calendars } from './calendars.js';
import type { LocalSchedules } from './local-schedules.js';
import type { ManagerConnections } from './manager-connections.js';
import { customTriggerOf, type ReplicaDeps } from './replica-role.js';
import type { ResumeContext } from './resume-catch-up.js';
import type { ControlContext } from './schedule-controls.js';
import type { ReadContext } from './schedule-reads.js';
import type { EnqueueContext, WriteContext } from './schedule-writes.js';
import type { StagedControlContext } from './staged-controls.js';

/** What the manager's operations ask of the manager itself, each time (tests stand in for them). */
interface ManagerSeams {
  readonly hooks: FireHooks | undefined;
  /** Read at each use: the CLI hands a jobs module's manager its own logger after the module made it. */
  readonly logger: Logger;
  queue(name: string): Queue;
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions;
}

/** The parts of a manager its writes, reads and controls are made of. */
export interface ManagerParts {
  /** The manager itself: it emits the events, is the host of the handles it answers, holds the test hooks. */
  manager: ForeignOutcomesManager &
    ScheduledJobHost &
    ManagerSeams & { readonly events: EventEmitter<SchedulerEvents> };
  options: ResolvedManagerOptions;
  keys: Keys;
  connections: ManagerConnections;
  schedules: LocalSchedules;
  /** Drop a schedule's occurrences held here and tell the other replicas to (`stop:<id>`). */
  publishStop(id: string): Promise<void>;
}

/**
 * What each of the manager's operations needs from it, made on each use from the current
 * connections (a close ends them; the next use connects again).
 */
export class ManagerContexts {
  private notesStore: PauseNotes | undefined;
  private calendarStoreOf: CalendarStore | undefined;
  /** The named calendars this process has read, kept current by a version check where they are used. */
  readonly calendarBook = new CalendarBook(() => this.calendarStore);
  /** `manager.calendars` (collecting its definitions in a manager made for `bullbeat plan`). */
  readonly calendars = new Calendars(() => this.calendarStore, this.calendarBook, inPlanMode());

  constructor(readonly parts: ManagerParts) {}

  /** What the scheduler role is made of (read at start: the test hooks set by then). */
  get replica(): ReplicaDeps {
    const { manager, connections, options, keys, schedules, publishStop } = this.parts;
    return {
      manager,
      connections,
      options,
      keys,
      logger: manager.logger,
      local: schedules.byId,
      jobOptions: (def, jobId) => this.jobOptions(def, jobId),
      publishStop,
      hooks: manager.hooks,
      calendars: this.calendarBook,
    };
  }

  /** The manager's BullMQ queue of a name (asked of the manager each time: a test may stand in for it). */
  queue(name: string): Queue {
    return this.parts.manager.queue(name);
  }

  /** The manager's BullMQ options of an occurrence. */
  jobOptions(def: ScheduleDefinition, jobId: string): JobsOptions {
    return this.parts.manager.jobOptions(def, jobId);
  }

  /** The trigger of a stored definition (a custom one only if this process defines it). */
  triggerOf(def: ScheduleDefinition): Trigger | undefined {
    if (def.trigger.type === 'custom') return customTriggerOf(this.parts.schedules.byId.get(def.id));
    return triggerFromJSON(def.trigger, { calendars: this.calendarBook });
  }

  /** The named calendars (`{prefix}:bb:calendars`), on the current client. */
  get calendarStore(): CalendarStore {
    const redis = this.parts.connections.redis;
    if (this.calendarStoreOf?.redis !== redis)
      this.calendarStoreOf = new CalendarStore(redis, this.parts.keys);
    return this.calendarStoreOf;
  }

  /** The pause notes (`{prefix}:bb:notes`), on the current client. */
  get pauseNotes(): PauseNotes {
    const redis = this.parts.connections.redis;
    if (this.notesStore?.redis !== redis) this.notesStore = new PauseNotes(redis, this.parts.keys);
    return this.notesStore;
  }

  get writes(): WriteContext {
    const { connections, keys, manager, schedules } = this.parts;
    return {
      store: connections.store,
      keys,
      logger: manager.logger,
      events: manager.events,
      publish: (message) => publishWake(connections.redis, keys, message),
      triggerOf: (def) => this.triggerOf(def),
      local: schedules.byId,
      knownNotifiers: async () =>
        new Set([
          ...this.parts.options.alerts.notifiers.map((n) => n.name),
          ...(await new AlertStore(connections.redis, this.parts.options.prefix).notifierNames()),
        ]),
      calendars: this.calendarBook,
    };
  }

  get controls(): ControlContext {
    const { connections, schedules, publishStop } = this.parts;
    return {
      store: connections.store,
      notes: this.pauseNotes,
      audit: connections.audit,
      ledger: this.backfillLedger,
      local: schedules.byId,
      byName: schedules.byName,
      publishStop,
      staged: this.staged,
    };
  }

  get enqueue(): EnqueueContext {
    const { connections, options, keys } = this.parts;
    return {
      ...this.writes,
      prefix: options.prefix,
      history: connections.history,
      queue: (name) => this.queue(name),
      jobOptions: (def, jobId) => this.jobOptions(def, jobId),
      manualRuns: {
        ...connections.audit,
        redis: connections.redis,
        keys,
        historyLimit: options.historyLimit,
        audit: connections.audit,
      },
    };
  }

  get resume(): ResumeContext {
    return {
      ...this.enqueue,
      ...this.owedRuns,
      notes: this.pauseNotes,
      owedGraceMs: this.parts.options.claimLeaseMs,
    };
  }

  get backfills(): BackfillContext {
    return {
      ...this.owedRuns,
      store: this.parts.connections.store,
      notes: this.pauseNotes,
      owedGraceMs: this.parts.options.claimLeaseMs,
      triggerOf: (def) => this.triggerOf(def),
      pace: this.parts.manager.hooks?.clock ?? monotonicClock,
    };
  }

  /** What enqueueing the occurrences a backfill or a catch-up took needs (the sweeper's too). */
  get owedRuns(): OwedRunsContext {
    const { connections, manager, options } = this.parts;
    return {
      ledger: this.backfillLedger,
      prefix: options.prefix,
      events: manager.events,
      time: () => connections.store.time(),
      queue: (name) => this.queue(name),
      jobOptions: (def, jobId) => this.jobOptions(def, jobId),
    };
  }

  private get backfillLedger(): BackfillLedger {
    const { connections, keys, options } = this.parts;
    return new BackfillLedger(connections.redis, keys, options.historyLimit, connections.audit);
  }

  /** How pause, remove and update reach occurrences committed to BullMQ ahead (staged-controls.ts). */
  get staged(): StagedControlContext {
    const { connections, keys } = this.parts;
    return {
      store: connections.store,
      redis: connections.redis,
      keys,
      history: connections.history,
      queue: (n) => this.queue(n),
      triggerOf: (d) => this.triggerOf(d),
    };
  }

  get reads(): ReadContext {
    const { connections, keys, manager, schedules } = this.parts;
    return {
      store: connections.store,
      redis: connections.redis,
      keys,
      local: schedules.byId,
      triggerOf: (def) => this.triggerOf(def),
      handle: (def, trigger) => new ScheduledJob(manager, def, trigger, undefined, []),
      pauseNotes: (ids) => this.pauseNotes.getMany(ids),
      refreshCalendars: (names) => this.calendarBook.refresh(names),
    };
  }
}
