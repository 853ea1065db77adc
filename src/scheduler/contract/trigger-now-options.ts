import { ScheduleOptionsError } from '../../errors/index.js';
import type { AuditActor } from '../../store/index.js';
import { firstProblem, jobOptionsSchema, type PassthroughJobOptions } from '../../store/index.js';
import { actorOf, type ChangeOptions } from './change-options.js';

/** Options of `triggerNow(id, options)`: who asks, and what this one run carries instead of the schedule's. */
export interface TriggerNowOptions extends ChangeOptions {
  /**
   * The data of this run instead of the schedule's `data`: the job's `data.data` (its whole data under
   * `payload: 'plain'`), which a handler reads from `ctx.job`. JSON, at most `OVERRIDE_DATA_MAX_BYTES`
   * (64 KiB) as JSON text.
   * @defaultValue the schedule's
   */
  data?: unknown;
  /**
   * BullMQ options of this run's job over the schedule's `jobOptions` (`priority`, `lifo`, ...; the same
   * fields a schedule's `jobOptions` takes).
   * @defaultValue the schedule's
   */
  jobOptions?: PassthroughJobOptions;
}

/** The largest overridden `data` of one run, as JSON text (bytes of UTF-8). */
export const OVERRIDE_DATA_MAX_BYTES = 64 * 1024;

/** What a run carries instead of its schedule's: checked, with the names of what is overridden. */
export interface RunOverrides {
  data?: unknown;
  jobOptions?: PassthroughJobOptions;
  /** `data`, `jobOptions`: what this run overrides (empty: none). */
  names: ('data' | 'jobOptions')[];
}

/** Checks the overrides of one run (a `ScheduleOptionsError` naming `data` or `jobOptions.<field>`). */
export function resolveRunOverrides(
  id: string,
  options: { data?: unknown; jobOptions?: unknown } | undefined,
): RunOverrides {
  const out: RunOverrides = { names: [] };
  if (options?.data !== undefined) {
    let text: string | undefined;
    try {
      text = JSON.stringify(options.data);
    } catch (err) {
      throw new ScheduleOptionsError(id, 'data', `must be JSON-serializable (${(err as Error).message})`);
    }
    const bytes = Buffer.byteLength(text ?? '', 'utf8');
    if (bytes > OVERRIDE_DATA_MAX_BYTES) {
      throw new ScheduleOptionsError(
        id,
        'data',
        `is ${bytes} bytes of JSON: at most ${OVERRIDE_DATA_MAX_BYTES} for one run's data`,
      );
    }
    out.data = JSON.parse(text as string) as unknown;
    out.names.push('data');
  }
  if (options?.jobOptions !== undefined) {
    const parsed = jobOptionsSchema.safeParse(options.jobOptions);
    if (!parsed.success) {
      const { field, reason } = firstProblem(parsed.error);
      throw new ScheduleOptionsError(id, field === '(root)' ? 'jobOptions' : `jobOptions.${field}`, reason);
    }
    out.jobOptions = parsed.data as PassthroughJobOptions;
    out.names.push('jobOptions');
  }
  return out;
}

/** The actor and the overrides of `triggerNow(id, options)`, checked before anything is read or written. */
export function resolveTriggerNowOptions(
  id: string,
  options: TriggerNowOptions | undefined,
): { by: AuditActor; overrides: RunOverrides } {
  return { by: actorOf(id, options), overrides: resolveRunOverrides(id, options) };
}
