import type { Job } from 'bullmq';
import type { RunRecord } from '../store/index.js';
import { type OccurrenceJobData, type OccurrenceRunOptions, parseOccurrenceJobId } from '../store/index.js';
import type { WorkerScheduler } from './worker-scheduler.js';

/** How long a schedule read for a plain job serves the next jobs of the same schedule. */
const DEFINITION_TTL_MS = 2000;

interface CachedDefinition {
  at: number;
  def: { args: readonly unknown[]; run: OccurrenceRunOptions } | undefined;
}

/** Whether a job's data is bullbeat's envelope (`OccurrenceJobData`) rather than a plain payload. */
export function isWrappedData(data: unknown): data is OccurrenceJobData {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Partial<OccurrenceJobData>;
  return typeof d.scheduleId === 'string' && typeof d.fireAt === 'number' && typeof d.prefix === 'string';
}

/** The kind of run a plain job's id names: its lane (manual, backfill), else a scheduled one. */
function kindOfLane(manual: ReturnType<typeof parseOccurrenceJobId>): RunRecord['kind'] | undefined {
  if (!manual) return undefined;
  return manual.manual === 'backfill' ? 'backfill' : manual.manual ? 'manual' : 'scheduled';
}

/**
 * Reads what the worker runtime needs of an occurrence. A wrapped job carries it all in its data. A
 * job of a `plain` schedule carries only the user's data: the occurrence comes from its job id
 * (`occurrenceJobId`: schedule id, fire time, lane) and its arguments and overlap rules from the
 * stored schedule, read once per schedule every couple of seconds. A job from any other producer
 * gets nothing: the runner falls back on the handler registered for its name.
 */
export class OccurrenceFacts {
  private readonly cache = new Map<string, CachedDefinition>();

  constructor(
    private readonly scheduler: WorkerScheduler,
    private readonly now: () => number = Date.now,
  ) {}

  /** The job's occurrence data, as far as it can be known. */
  async of(job: Job): Promise<Partial<OccurrenceJobData>> {
    if (isWrappedData(job.data)) return job.data;
    const named = job.id === undefined ? null : parseOccurrenceJobId(job.id);
    if (!named) return {};
    const def = await this.definition(named.scheduleId);
    return {
      scheduleId: named.scheduleId,
      fireAt: named.fireAt,
      kind: kindOfLane(named) ?? 'scheduled',
      ...(def && { args: [...def.args], run: def.run }),
    };
  }

  /** The kind of run of a job, without reading Redis (see `of`). */
  kindOf(job: Job): RunRecord['kind'] {
    if (isWrappedData(job.data)) return job.data.kind ?? 'scheduled';
    return kindOfLane(job.id === undefined ? null : parseOccurrenceJobId(job.id)) ?? 'scheduled';
  }

  private async definition(id: string): Promise<CachedDefinition['def']> {
    const now = this.now();
    const hit = this.cache.get(id);
    if (hit && now - hit.at < DEFINITION_TTL_MS) return hit.def;
    const def = (await this.scheduler.get?.(id))?.def;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(id, { at: now, def });
    return def;
  }
}
