import { ConfigError, ScheduleOptionsError } from '../errors/index.js';
import { resolveWorkerTuning, WORKER_TUNING_KEYS, type WorkerTuning } from '../queue/index.js';
import {
  internalsOf,
  MANAGER_TUNING_KEYS,
  type ManagerTuning,
  type SchedulerManager,
} from '../scheduler/index.js';
import type { ConfigSources } from './cli-config.js';

// `--tuning knob=value` (repeatable, or a comma list) and `BULLBEAT_TUNING=knob=value,...`: the
// `tuning` object of the manager (scheduler knobs) and of the worker runtime, from the command line.
// One flag for every knob rather than one per knob: the knobs stay apart from what a user must
// understand (docs/tuning.md), `--help` keeps one line for them, the flag and the variable share one
// syntax, and a knob added to the library needs no new flag.

/** Which process takes a knob. */
type Side = 'scheduler' | 'worker';

const KNOBS: ReadonlyMap<string, Side> = new Map<string, Side>([
  ...MANAGER_TUNING_KEYS.map((k) => [k, 'scheduler'] as [string, Side]),
  ...WORKER_TUNING_KEYS.map((k) => [k, 'worker'] as [string, Side]),
]);

/** The knobs given on the command line, for one process. */
export interface CliTuning {
  /** The manager's knobs (`bullbeat scheduler`, `bullbeat dev`). */
  manager: ManagerTuning;
  /** The worker runtime's knobs (`bullbeat worker`, `bullbeat dev`). */
  worker: WorkerTuning;
  /** Where each knob given came from (`--tuning claimBatch`, `BULLBEAT_TUNING claimBatch`): errors name it. */
  origin: ReadonlyMap<string, string>;
}

const known = (sides: readonly Side[]) =>
  sides
    .map(
      (s) =>
        `bullbeat ${s}: ${[...KNOBS]
          .filter(([, v]) => v === s)
          .map(([k]) => k)
          .join(', ')}`,
    )
    .join('; ');

/**
 * The tuning knobs of `BULLBEAT_TUNING` and `--tuning` (a flag wins over the variable, knob by knob),
 * each value read by its knob's kind: a whole number, a boolean (`1/true/yes/on`, `0/false/no/off`), or
 * for `replicaAcks` `replicas[:timeoutMs]` or `off`. A malformed entry or an unknown knob is a
 * `ConfigError` naming the flag or the variable and the knob. A flag naming another process's knob is
 * refused; the variable may carry both processes' knobs (one environment for a deployment), each
 * process reading its own. Ranges are checked where the knobs are used (`applyManagerTuning`,
 * `checkWorkerTuning`), by the library's own rules.
 */
export function resolveCliTuning(sources: ConfigSources, sides: readonly Side[]): CliTuning {
  const manager: Record<string, unknown> = {};
  const worker: Record<string, unknown> = {};
  const origin = new Map<string, string>();
  const read = (text: string, source: '--tuning' | 'BULLBEAT_TUNING') => {
    for (const entry of text.split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const eq = trimmed.indexOf('=');
      if (eq <= 0) {
        throw new ConfigError(
          source,
          `expected knob=value (e.g. claimBatch=500), got ${JSON.stringify(trimmed)}`,
        );
      }
      const knob = trimmed.slice(0, eq).trim();
      const raw = trimmed.slice(eq + 1).trim();
      const label = `${source} ${knob}`;
      const side = KNOBS.get(knob);
      if (side === undefined) throw new ConfigError(label, `unknown tuning knob (known: ${known(sides)})`);
      if (!sides.includes(side)) {
        if (source === 'BULLBEAT_TUNING') continue; // the other process's knob: one environment for both
        throw new ConfigError(label, `a bullbeat ${side} knob, not this command's (known: ${known(sides)})`);
      }
      (side === 'scheduler' ? manager : worker)[knob] = knobValue(knob, raw, label);
      origin.set(knob, label);
    }
  };
  const env = sources.env.BULLBEAT_TUNING;
  if (env !== undefined && env.trim() !== '') read(env, 'BULLBEAT_TUNING');
  const flags = sources.flags.tuning;
  if (Array.isArray(flags)) for (const f of flags) read(String(f), '--tuning');
  return { manager: manager as ManagerTuning, worker: worker as WorkerTuning, origin };
}

const BOOLEAN_KNOBS = new Set(['backpressure', 'commitAhead']);

function knobValue(knob: string, raw: string, label: string): unknown {
  if (knob === 'replicaAcks') {
    const t = raw.toLowerCase();
    if (['0', 'off', 'false', 'no'].includes(t)) return false;
    const m = /^(\d+)(?::(\d+))?$/.exec(t);
    if (!m)
      throw new ConfigError(
        label,
        `expected replicas[:timeoutMs] (e.g. 1 or 1:50), or off, got ${JSON.stringify(raw)}`,
      );
    return { replicas: Number(m[1]), ...(m[2] !== undefined && { timeoutMs: Number(m[2]) }) };
  }
  if (BOOLEAN_KNOBS.has(knob)) {
    const t = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(t)) return true;
    if (['0', 'false', 'no', 'off'].includes(t)) return false;
    throw new ConfigError(label, `expected 1/true/yes/on or 0/false/no/off, got ${JSON.stringify(raw)}`);
  }
  // a number the library then checks against the knob's range (a negative one included, so that its
  // message says the bound)
  if (!/^-?\d+$/.test(raw))
    throw new ConfigError(label, `expected a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * The refusal of a knob by the library's rules (`tuning.claimLeaseMs: must be an integer >= 100`),
 * named as the user gave it (`--tuning claimLeaseMs: ...`). A rule between two knobs names the one
 * the library names (`claimAheadMs` beside a shorter `claimLeaseMs`), or `triggerBudgetMs`, the jobs
 * module's, beside a `claimLeaseMs` of the command line.
 */
function relabelled(err: unknown, tuning: CliTuning): unknown {
  const field =
    err instanceof ScheduleOptionsError ? err.field : err instanceof ConfigError ? err.setting : undefined;
  if (field === undefined) return err;
  const reason = (err as ScheduleOptionsError | ConfigError).reason;
  const knob = /^tuning\.([A-Za-z]+)(.*)$/.exec(field);
  const label = knob?.[1] !== undefined ? tuning.origin.get(knob[1]) : undefined;
  if (knob && label) return new ConfigError(`${label}${knob[2] ?? ''}`, reason, { cause: err });
  return new ConfigError([...tuning.origin.values()].join(', '), `${field}: ${reason}`, { cause: err });
}

/**
 * Lay the command line's manager knobs over the jobs module's `tuning` (they win, as
 * `--max-fires-per-second` does), checked by the manager's own rules; returns the knobs given, as now
 * in force, for the log (empty when none was given).
 */
export function applyManagerTuning(scheduler: SchedulerManager, tuning: CliTuning): Record<string, unknown> {
  const given = Object.keys(tuning.manager);
  if (given.length === 0) return {};
  let now: Record<string, unknown>;
  try {
    now = internalsOf(scheduler).retune(tuning.manager) as unknown as Record<string, unknown>;
  } catch (err) {
    throw relabelled(err, tuning);
  }
  return Object.fromEntries(given.map((k) => [k, now[k] ?? false]));
}

/** Check the command line's worker knobs by the worker runtime's own rules, before anything starts. */
export function checkWorkerTuning(tuning: CliTuning): Record<string, unknown> {
  const given = Object.keys(tuning.worker);
  if (given.length === 0) return {};
  try {
    const values = resolveWorkerTuning({ tuning: tuning.worker }).values as Record<string, unknown>;
    return Object.fromEntries(given.map((k) => [k, values[k]]));
  } catch (err) {
    throw relabelled(err, tuning);
  }
}
