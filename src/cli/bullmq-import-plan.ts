import type { PassthroughJobOptions, ScheduleOptions } from '../scheduler/index.js';
import type { JobPayload } from '../store/index.js';
import { CronTrigger, IntervalTrigger, type SerializableTrigger } from '../triggers/index.js';

/** One BullMQ schedule as stored in a queue: a job scheduler, or a legacy repeatable job (BullMQ 5 and older). */
export interface BullmqSchedule {
  kind: 'job-scheduler' | 'legacy-repeatable';
  /** The job scheduler id, or the legacy repeatable job's key. */
  key: string;
  /** The job name its jobs get. */
  name: string;
  /** A legacy repeatable job's custom job id. */
  jobId?: string;
  pattern?: string;
  tz?: string;
  every?: number;
  offset?: number;
  limit?: number;
  /** Jobs BullMQ has created so far (the pending one included). */
  iterationCount?: number;
  startDate?: number;
  endDate?: number;
  next?: number;
  data?: unknown;
  opts?: Record<string, unknown>;
}

/** What one BullMQ schedule becomes in bullbeat: a runtime schedule, or why it cannot be one. */
export type ImportPlanItem =
  | {
      mapped: true;
      source: BullmqSchedule;
      /** The bullbeat schedule id (the job scheduler's id). */
      id: string;
      target: { queue: string; name: string };
      trigger: SerializableTrigger;
      options: ScheduleOptions;
      /** `BullMQ option → bullbeat option` lines. */
      mapping: string[];
    }
  | { mapped: false; source: BullmqSchedule; id: string; reason: string; mapping: string[] };

/** Job options bullbeat owns or that make no sense on a schedule's jobs. */
const DROPPED_OPTS = new Set(['jobId', 'delay', 'repeat', 'repeatJobKey', 'timestamp', 'prevMillis']);

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Maps one BullMQ schedule onto a bullbeat runtime schedule targeting `{ queue, name }`. Pure:
 * `now` is the time limits are judged against, `defaultTz` the zone of patterns that name none
 * (BullMQ read those in its worker's local zone).
 */
export function planImport(
  source: BullmqSchedule,
  queue: string,
  now: number,
  defaultTz: string,
  payload: JobPayload = 'plain',
): ImportPlanItem {
  const id = source.kind === 'job-scheduler' ? source.key : source.jobId || source.name;
  const mapping: string[] = [];
  const fail = (reason: string): ImportPlanItem => ({ mapped: false, source, id, reason, mapping });
  const options: ScheduleOptions = { id, ...(payload === 'plain' && { payload }) };
  let trigger: SerializableTrigger;
  try {
    if (source.pattern !== undefined) {
      const timezone = source.tz ?? defaultTz;
      trigger = new CronTrigger(source.pattern, { timezone });
      mapping.push(`pattern "${source.pattern}" → cron "${source.pattern}"`);
      mapping.push(
        source.tz !== undefined
          ? `tz "${source.tz}" → timezone "${timezone}"`
          : `no tz (BullMQ used its worker's local zone) → timezone "${timezone}" (--tz to change)`,
      );
      if (source.offset) mapping.push(`offset ${source.offset} ms: not mapped (cron times are exact)`);
    } else if (source.every !== undefined) {
      const anchor = source.offset ?? 0;
      trigger = new IntervalTrigger(source.every / 1000, { anchor });
      mapping.push(`every ${source.every} ms → every ${source.every / 1000} s`);
      if (anchor) mapping.push(`offset ${anchor} ms → anchor ${anchor} (the same phase)`);
    } else {
      return fail('it has neither a pattern nor every');
    }
  } catch (err) {
    return fail((err as Error).message);
  }

  if (source.limit !== undefined) {
    const ran = Math.max(0, (source.iterationCount ?? 0) - 1);
    const left = source.limit - ran;
    if (left <= 0) return fail(`its limit of ${source.limit} runs is used up`);
    options.maxRuns = left;
    mapping.push(`limit ${source.limit} (${ran} run so far) → maxRuns ${left}`);
  }
  if (source.startDate !== undefined) {
    options.startAt = source.startDate;
    mapping.push(`startDate → startAt ${iso(source.startDate)}`);
  }
  if (source.endDate !== undefined) {
    if (source.endDate <= now) return fail(`its endDate ${iso(source.endDate)} has passed`);
    options.endAt = source.endDate;
    mapping.push(`endDate → endAt ${iso(source.endDate)}`);
  }
  if (source.data !== undefined) {
    options.data = source.data;
    mapping.push(
      payload === 'plain'
        ? "template data → data (each job's data, as BullMQ made it)"
        : 'template data → data (a plain BullMQ worker reads it as job.data.data)',
    );
  } else if (source.kind === 'legacy-repeatable') {
    mapping.push('data: a legacy repeatable job keeps it on each job, not in its entry: not mapped');
  }
  mapOpts(source.opts ?? {}, options, mapping);
  return { mapped: true, source, id, target: { queue, name: source.name }, trigger, options, mapping };
}

/** Template job options: attempts and backoff become bullbeat's, the rest passes through as BullMQ options. */
function mapOpts(opts: Record<string, unknown>, options: ScheduleOptions, mapping: string[]): void {
  const passthrough: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (value === undefined) continue;
    if (key === 'attempts' && typeof value === 'number') {
      options.attempts = value;
      mapping.push(`opts.attempts → attempts ${value}`);
    } else if (key === 'backoff' && (typeof value === 'number' || typeof value === 'object')) {
      options.backoff = value as ScheduleOptions['backoff'];
      mapping.push(`opts.backoff → backoff ${JSON.stringify(value)}`);
    } else if (DROPPED_OPTS.has(key)) {
      mapping.push(`opts.${key}: not mapped (bullbeat sets it)`);
    } else {
      passthrough[key] = value;
      mapping.push(`opts.${key} → jobOptions.${key}`);
    }
  }
  if (Object.keys(passthrough).length > 0) options.jobOptions = passthrough as PassthroughJobOptions;
}

/**
 * Reads a legacy repeatable job key, `name:jobId:endDate:tz:pattern` (or `...:every` in ms), as
 * BullMQ 5 and older wrote it; undefined when the key has another shape.
 */
export function parseLegacyKey(key: string, next: number | undefined): BullmqSchedule | undefined {
  const parts = key.split(':');
  if (parts.length < 5) return undefined;
  const [name = '', jobId = '', endDate = '', tz = ''] = parts;
  const suffix = parts.slice(4).join(':');
  if (suffix === '' || (endDate !== '' && !/^\d+$/.test(endDate))) return undefined;
  const every = /^\d+$/.test(suffix) ? Number(suffix) : undefined;
  return {
    kind: 'legacy-repeatable',
    key,
    name,
    ...(jobId && { jobId }),
    ...(every === undefined ? { pattern: suffix } : { every }),
    ...(tz && { tz }),
    ...(endDate && { endDate: Number(endDate) }),
    ...(next !== undefined && { next }),
  };
}
