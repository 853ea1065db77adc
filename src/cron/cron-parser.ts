import { CronSyntaxError } from '../errors/cron-syntax-error.js';
import { popCount, popCount60 } from './bits.js';
import { type CronOptions, repeatedRule } from './cron-options.js';
import { type CronPattern, parsePattern } from './pattern.js';
import { TimeZone } from './time-zone.js';
import { WallClockSearch } from './wall-clock-search.js';

const FOUR_HUNDRED_YEARS_MS = 146_097 * 86_400_000;

function toInstant(value: number | Date, what: string): number {
  const t = value instanceof Date ? value.getTime() : value;
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    throw new TypeError(
      `CronParser.${what}: expected a finite epoch-ms number or a valid Date, got ${String(value)}`,
    );
  }
  return t;
}

/**
 * A parsed cron expression in a time zone (Sillo's `CronParser`). `next()` and `prev()` walk the
 * timeline one span of constant UTC offset at a time; inside a span they search wall-clock time with
 * bitmask jumps (`WallClockSearch`), and at span edges they apply the DST rules:
 *
 * - a fall-back repeats a range of wall times: `repeated: 'first'` drops matches on the
 *   second pass, `'both'` keeps them;
 * - a spring-forward gap skips a range of wall times: `gap: 'shift'` fires once at the first valid
 *   instant after the gap (the transition) when any match falls inside it, `'skip'` drops them.
 *
 * Fixed-time expressions (single second, minute and hour) default to `shift` and `first`, interval
 * expressions to `skip` and `both` (the Vixie cron / croner rules); `options.dst` overrides either.
 */
export class CronParser {
  readonly expression: string;
  /** The IANA name of the zone the expression is read in, as given (default `UTC`). */
  readonly timezone: string;
  readonly hasSeconds: boolean;
  /** Every minute (and second) of the hour matches: a wall-clock hour matches whole or not at all. */
  readonly wholeHours: boolean;
  /** Every instant matches (`* * * * *`). */
  readonly always: boolean;
  /** Single values in second, minute and hour: the fixed-time DST rules apply by default. */
  readonly fixedTime: boolean;
  readonly dayMatch: 'or' | 'and';
  readonly gap: 'shift' | 'skip';
  /** A matching wall time inside a fall-back repeated hour: run on its `first` pass only, or `both`. */
  readonly repeated: 'first' | 'both';
  /**
   * The earlier name of `repeated`.
   * @deprecated Read `repeated`.
   */
  get overlap(): 'first' | 'both' {
    return this.repeated;
  }
  private readonly pattern: CronPattern;
  private readonly search: WallClockSearch;
  private readonly zone: TimeZone;

  constructor(expression: string, options: CronOptions = {}) {
    this.pattern = parsePattern(expression);
    this.expression = expression;
    this.zone = TimeZone.of(options.timezone ?? 'UTC');
    this.timezone = this.zone.name;
    this.hasSeconds = this.pattern.hasSeconds;
    const p = this.pattern;
    this.wholeHours =
      popCount60(p.minLo, p.minHi) === 60 && (!p.hasSeconds || popCount60(p.secLo, p.secHi) === 60);
    this.always =
      this.wholeHours &&
      popCount(p.hours) === 24 &&
      popCount(p.months) === 12 &&
      popCount(p.domMask) === 31 &&
      popCount(p.dowMask) === 7;
    this.fixedTime = this.pattern.fixedTime;
    const dayMatch = options.dayMatch ?? 'or';
    if (dayMatch !== 'or' && dayMatch !== 'and') {
      throw new CronSyntaxError(expression, 'expression', String(dayMatch), `dayMatch must be 'or' or 'and'`);
    }
    this.dayMatch = dayMatch;
    const gap = options.dst?.gap ?? (this.fixedTime ? 'shift' : 'skip');
    const rule = repeatedRule(options.dst);
    if ('problem' in rule) throw new CronSyntaxError(expression, 'expression', '', rule.problem);
    const repeated = rule.repeated ?? (this.fixedTime ? 'first' : 'both');
    if (gap !== 'shift' && gap !== 'skip') {
      throw new CronSyntaxError(expression, 'expression', String(gap), `dst.gap must be 'shift' or 'skip'`);
    }
    if (repeated !== 'first' && repeated !== 'both') {
      throw new CronSyntaxError(
        expression,
        'expression',
        String(repeated),
        `dst.repeated must be 'first' or 'both', got ${JSON.stringify(repeated)}`,
      );
    }
    this.gap = gap;
    this.repeated = repeated;
    this.search = new WallClockSearch(this.pattern, dayMatch);
    if (Number.isNaN(this.search.next(Date.UTC(2000, 0, 1)))) {
      throw new CronSyntaxError(
        expression,
        'expression',
        expression.trim(),
        'can never fire: no date matches it',
      );
    }
  }

  /** The first firing instant strictly after `after` (epoch ms), or null if there is none. */
  next(after: number | Date): number | null {
    const from = Math.floor(toInstant(after, 'next')) + 1;
    if (this.zone.isUtc) {
      const wall = this.search.next(from);
      return Number.isNaN(wall) ? null : wall;
    }
    const horizon = from + FOUR_HUNDRED_YEARS_MS;
    for (let t = from; t < horizon; ) {
      const span = this.zone.spanAt(t);
      const { start, end, offset, prevOffset } = span;
      if (offset > prevOffset && start >= t && this.gap === 'shift') {
        const inGap = this.search.next(start + prevOffset);
        if (inGap < start + offset) return start;
      }
      let wallFrom = t + offset;
      if (offset < prevOffset && this.repeated === 'first') wallFrom = Math.max(wallFrom, start + prevOffset);
      const wall = this.search.next(wallFrom);
      if (Number.isNaN(wall)) return null;
      if (wall - offset < end) return wall - offset;
      t = end;
    }
    return null;
  }

  /** The last firing instant strictly before `before` (epoch ms), or null if there is none. */
  prev(before: number | Date): number | null {
    const to = Math.ceil(toInstant(before, 'prev')) - 1;
    if (this.zone.isUtc) {
      const wall = this.search.prev(to);
      return Number.isNaN(wall) ? null : wall;
    }
    const horizon = to - FOUR_HUNDRED_YEARS_MS;
    for (let t = to; t > horizon; ) {
      const span = this.zone.spanAt(t);
      const { start, offset, prevOffset } = span;
      const lowestWall =
        offset < prevOffset && this.repeated === 'first' ? start + prevOffset : start + offset;
      const wall = this.search.prev(t + offset);
      if (Number.isNaN(wall)) return null;
      if (wall >= lowestWall) return wall - offset;
      if (offset > prevOffset && this.gap === 'shift') {
        const inGap = this.search.next(start + prevOffset);
        if (inGap < start + offset) return start;
      }
      t = start - 1;
    }
    return null;
  }

  /** Whether the expression fires exactly at `instant` (DST rules included). */
  matches(instant: number | Date): boolean {
    const t = toInstant(instant, 'matches');
    return Number.isInteger(t) && this.next(t - 1) === t;
  }

  /** The next `n` firing instants strictly after `after`. */
  nextN(n: number, after: number | Date): number[] {
    const out: number[] = [];
    let t: number | null = toInstant(after, 'nextN');
    while (out.length < n && (t = this.next(t)) !== null) out.push(t);
    return out;
  }
}
