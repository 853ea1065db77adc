/** How a schedule treats the wall-clock times that a DST change skips or repeats. */
export interface DstPolicy {
  /**
   * A matching local time inside a spring-forward gap (it never happens on the wall clock):
   * `'shift'` runs at the first valid instant after the gap, `'skip'` drops it.
   * Default: `'shift'` for fixed-time expressions, `'skip'` for interval expressions.
   */
  gap?: 'shift' | 'skip';
  /**
   * A matching local time inside a fall-back repeated hour (it happens twice):
   * `'first'` runs on the first pass only, `'both'` runs on both.
   * Default: `'first'` for fixed-time expressions, `'both'` for interval expressions.
   */
  repeated?: 'first' | 'both';
  /**
   * The earlier name of `repeated`, read as it (a schedule's `overlap` is another idea: what a run
   * does while another runs). Both given and different are refused.
   * @deprecated Give `repeated`.
   */
  overlap?: 'first' | 'both';
}

/**
 * The `repeated` rule a DST policy gives, its earlier name `overlap` read as it: undefined when neither
 * is given; a reason when both are given and differ.
 */
export function repeatedRule(
  dst: DstPolicy | undefined,
): { repeated: 'first' | 'both' | undefined } | { problem: string } {
  const repeated = dst?.repeated;
  const alias = dst?.overlap;
  if (repeated !== undefined && alias !== undefined && repeated !== alias) {
    return {
      problem: `dst.overlap (the earlier name of dst.repeated) "${String(alias)}" contradicts dst.repeated "${String(repeated)}": give dst.repeated alone`,
    };
  }
  return { repeated: repeated ?? alias };
}

export interface CronOptions {
  /** IANA time zone the expression is read in. Default: `'UTC'`. */
  timezone?: string;
  /**
   * How day-of-month and day-of-week combine when both are restricted. `'or'` (Vixie cron: either
   * matches; a field starting with `*` counts as unrestricted) or `'and'` (both must match).
   * Default: `'or'`.
   */
  dayMatch?: 'or' | 'and';
  /** Override the DST rules for this expression. Default: the Vixie cron / croner rules. */
  dst?: DstPolicy;
}
