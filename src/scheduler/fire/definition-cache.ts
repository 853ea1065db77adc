import type { JobsOptions } from 'bullmq';
import type { Logger } from 'pino';
import type { Claim } from '../../store/index.js';
import { decodeDefinition, type ScheduleDefinition } from '../../store/index.js';
import { type CalendarSource, NO_CALENDARS } from '../../triggers/calendar-trigger.js';
import type { Trigger } from '../../triggers/trigger.js';
import { triggerFromJSON } from '../../triggers/trigger-from-json.js';
import type { SpanSoFar } from './occurrence-planner.js';
import type { PlanAllowance } from './plan-allowance.js';

/** Parsed definitions kept (least recently used go first; completed and stopped schedules at once). */
const CACHE_LIMIT = 20_000;

/** A claim's definition, parsed once while it is unchanged. */
export interface CachedDefinition {
  defJSON: string;
  def: ScheduleDefinition;
  trigger: Trigger;
  /** The definition's BullMQ job options (without the job id), computed once. */
  opts?: JobsOptions;
  /** Its planning time so far, for a schedule whose plans took a millisecond or more (plan-allowance.ts). */
  allowance?: PlanAllowance | undefined;
  /** The span its last coalesced occurrence found behind its waiting job (`coalescedPlan`'s `soFar`). */
  span?: SpanSoFar | undefined;
}

/**
 * The parsed definitions and triggers of one replica's claims, by schedule id, bounded: least
 * recently used first out past CACHE_LIMIT, and dropped when a schedule completes or stops, so a
 * long-running replica keeps nothing per completed schedule (Sillo's memory pitfall).
 */
export class DefinitionCache {
  private readonly entries = new Map<string, CachedDefinition>();

  constructor(
    /** The custom trigger this process defines for a schedule, if any. */
    private readonly localTrigger: (id: string) => Trigger | undefined,
    private readonly logger: Logger,
    /** Where a schedule's named calendar is read (its current version) when it is planned. */
    private readonly calendars: CalendarSource = NO_CALENDARS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of a schedule, if cached (not touched). */
  peek(id: string): CachedDefinition | undefined {
    return this.entries.get(id);
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /**
   * The claim's definition and trigger; undefined when it vanished or has a custom trigger this process
   * does not define. Throws when the definition or its trigger cannot be read (the schedule is errored).
   */
  load(claim: Claim): CachedDefinition | undefined {
    const hit = this.entries.get(claim.id);
    if (hit && hit.defJSON === claim.defJSON) return this.touch(claim.id, hit);
    if (claim.defJSON === '') return undefined;
    const { def, problem } = decodeDefinition(claim.id, claim.defJSON);
    if (problem !== undefined) throw new Error(problem);
    let trigger: Trigger | undefined;
    if (def.trigger.type === 'custom') {
      trigger = this.localTrigger(def.id);
      if (!trigger) {
        this.logger.warn(
          { scheduleId: def.id },
          'bullbeat: schedule has a custom trigger that this process does not define; leaving it to one that does',
        );
        return undefined;
      }
    } else {
      trigger = triggerFromJSON(def.trigger, { calendars: this.calendars });
    }
    const cached = this.touch(claim.id, { defJSON: claim.defJSON, def, trigger });
    if (this.entries.size > CACHE_LIMIT) this.entries.delete(this.entries.keys().next().value!);
    return cached;
  }

  /** Put an entry last (most recently used). */
  private touch(id: string, entry: CachedDefinition): CachedDefinition {
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }
}
