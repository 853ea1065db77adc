// The tuning knobs of a manager or a worker live in one `tuning` object, apart from the options a user
// must understand; the same names at the top level are read as deprecated aliases.

/** Tuning gathered from `tuning` and the deprecated top-level names, each value's field as given. */
export interface GatheredTuning<T> {
  values: T;
  /** Where a knob was given (`tuning.claimBatch`, or `claimBatch` at the top level): errors name it. */
  fieldOf(key: keyof T & string): string;
  /** The top-level names given (deprecated aliases), for the one warning. */
  deprecated: string[];
}

/**
 * The knobs of `tuning`, and the same names at the top level of the options (deprecated aliases, read
 * as they are): an unknown `tuning` key, a `tuning` that is not an object, or a knob given both ways
 * with two values is refused naming it (`fail(field, reason)`).
 */
export function gatherTuning<T extends object>(
  options: object,
  keys: readonly (keyof T & string)[],
  fail: (field: string, reason: string) => never,
): GatheredTuning<T> {
  const given = options as Record<string, unknown> & { tuning?: unknown };
  const tuning = given.tuning;
  if (tuning !== undefined && (typeof tuning !== 'object' || tuning === null || Array.isArray(tuning))) {
    fail('tuning', `must be an object { ${keys.join(', ')} }, got ${JSON.stringify(tuning)}`);
  }
  const inTuning = (tuning ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(inTuning)) {
    if (!(keys as readonly string[]).includes(k)) {
      fail(`tuning.${k}`, `unknown tuning option (known: ${keys.join(', ')})`);
    }
  }
  const values: Record<string, unknown> = {};
  const fields = new Map<string, string>();
  const deprecated: string[] = [];
  for (const k of keys) {
    const top = given[k];
    const nested = inTuning[k];
    if (top !== undefined) deprecated.push(k);
    if (top !== undefined && nested !== undefined && JSON.stringify(top) !== JSON.stringify(nested)) {
      fail(
        `tuning.${k}`,
        `${JSON.stringify(nested)} contradicts the deprecated top-level ${k} ${JSON.stringify(top)}: give tuning.${k} alone`,
      );
    }
    const value = nested ?? top;
    if (value !== undefined) values[k] = value;
    fields.set(k, nested !== undefined || top === undefined ? `tuning.${k}` : k);
  }
  return { values: values as T, fieldOf: (k) => fields.get(k) ?? `tuning.${k}`, deprecated };
}

/** The warning for the deprecated top-level tuning names a process was given (one per process). */
export function deprecatedTuningWarning(who: string, names: readonly string[]): string {
  return `bullbeat: ${who} options ${names.join(', ')} at the top level are deprecated: give them in tuning: { ${names.join(', ')} } (docs/tuning.md)`;
}
