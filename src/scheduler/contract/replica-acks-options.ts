import { z } from 'zod';
import { ScheduleOptionsError } from '../../errors/index.js';
import type { ReplicaAcksOptions } from '../../store/index.js';

/** `replicaAcks.timeoutMs` when not given (ms). */
export const DEFAULT_REPLICA_ACKS_TIMEOUT_MS = 50;

const schema = z.strictObject({
  replicas: z
    .number({ error: 'must be an integer from 1 to 16' })
    .int({ error: 'must be an integer from 1 to 16' })
    .min(1, { error: 'must be an integer from 1 to 16' })
    .max(16, { error: 'must be an integer from 1 to 16' })
    .default(1),
  timeoutMs: z
    .number({ error: 'must be an integer from 1 to 60000 (ms; WAIT 0 would wait forever)' })
    .int({ error: 'must be an integer from 1 to 60000 (ms; WAIT 0 would wait forever)' })
    .min(1, { error: 'must be an integer from 1 to 60000 (ms; WAIT 0 would wait forever)' })
    .max(60_000, { error: 'must be an integer from 1 to 60000 (ms; WAIT 0 would wait forever)' })
    .default(DEFAULT_REPLICA_ACKS_TIMEOUT_MS),
});

/**
 * The manager's `replicaAcks`: `false`/absent = off (absent reads `BULLBEAT_REPLICA_ACKS`:
 * `replicas[:timeoutMs]`, `0`/`off` = off), an object = on with its defaults (1 replica, 50 ms).
 * Throws `ScheduleOptionsError` naming the field (or the variable).
 */
export function resolveReplicaAcks(
  given: unknown,
  env: NodeJS.ProcessEnv = process.env,
  /** The option's name as given (`tuning.replicaAcks`, or the deprecated top-level `replicaAcks`). */
  field = 'tuning.replicaAcks',
): ReplicaAcksOptions | undefined {
  if (given === undefined) return fromEnv(env.BULLBEAT_REPLICA_ACKS);
  if (given === false) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new ScheduleOptionsError(
      undefined,
      field,
      `must be false or { replicas, timeoutMs }, got ${JSON.stringify(given)}`,
    );
  }
  const r = schema.safeParse(given);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.length > 0 ? `${field}.${issue.path.join('.')}` : field;
  const got =
    issue.code === 'unrecognized_keys'
      ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      : `${issue.message}, got ${JSON.stringify((given as Record<string, unknown>)[String(issue.path[0])])}`;
  throw new ScheduleOptionsError(undefined, path, got);
}

function fromEnv(text: string | undefined): ReplicaAcksOptions | undefined {
  const t = text?.trim().toLowerCase();
  if (t === undefined || t === '' || ['0', 'off', 'false', 'no'].includes(t)) return undefined;
  const m = /^(\d+)(?::(\d+))?$/.exec(t);
  const bad = () =>
    new ScheduleOptionsError(
      undefined,
      'BULLBEAT_REPLICA_ACKS',
      `expected replicas[:timeoutMs] (e.g. 1 or 1:50), or 0/off, got ${JSON.stringify(text)}`,
    );
  if (!m) throw bad();
  const r = schema.safeParse({
    replicas: Number(m[1]),
    ...(m[2] !== undefined && { timeoutMs: Number(m[2]) }),
  });
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ScheduleOptionsError(
      undefined,
      'BULLBEAT_REPLICA_ACKS',
      `${String(issue.path[0])} ${issue.message}, got ${JSON.stringify(text)}`,
    );
  }
  return r.data;
}
