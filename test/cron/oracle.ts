/**
 * A brute-force cron oracle for tests and the benchmark only. It shares no code with src/cron/: it
 * parses the expression itself and walks the time line instant by instant (minute by minute, or
 * second by second for six fields), reading each instant's wall clock from a per-zone offset table
 * built with Intl, and applies the Vixie cron / croner DST rules (as bullbeat documents them) literally:
 *
 * - instant u fires when its wall time matches, unless u is the second pass of a repeated wall time
 *   and the overlap policy is 'first';
 * - a spring-forward transition instant T also fires when any wall time skipped by the gap matches and
 *   the gap policy is 'shift' (several skipped matches fire once, at T).
 *
 * Defaults: fixed-time expressions (single values in second, minute and hour) shift and fire on the
 * first pass; interval expressions skip and fire on both passes.
 *
 * The only shortcut: a whole wall month (day, hour, minute) whose month (day, hour, minute) fields do not
 * match is stepped over in one move, never past a UTC offset transition. Nothing else is clever.
 *
 * It is meant for valid expressions generated from the grammar; it throws a plain Error on anything it
 * does not understand.
 */

export interface OracleOptions {
  timezone?: string;
  dayMatch?: 'or' | 'and';
  dst?: { gap?: 'shift' | 'skip'; overlap?: 'first' | 'both' };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR_MS = 365.2425 * DAY;

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

type DomSpecial =
  | { kind: 'last'; minus: number }
  | { kind: 'lastWeekday' }
  | { kind: 'nearest'; day: number };
type DowSpecial = { kind: 'nth'; dow: number; nth: number } | { kind: 'last'; dow: number };

interface Spec {
  seconds: boolean[];
  minutes: boolean[];
  hours: boolean[];
  dom: boolean[];
  domSpecials: DomSpecial[];
  months: boolean[];
  dow: boolean[];
  dowSpecials: DowSpecial[];
  /** Both day fields restricted and OR applies. */
  dayOr: boolean;
  hasSeconds: boolean;
  fixedTime: boolean;
}

function value(text: string, names: string[] | null, offset: number): number {
  if (/^\d+$/.test(text)) return Number(text);
  const i = names ? names.indexOf(text.toUpperCase()) : -1;
  if (i < 0) throw new Error(`oracle: bad value "${text}"`);
  return i + offset;
}

/** Expands one plain field (no specials) into a boolean table indexed by value. */
function expand(text: string, lo: number, hi: number, names: string[] | null, nameOffset: number): boolean[] {
  const out = new Array<boolean>(hi + 1).fill(false);
  for (const item of text.split(',')) {
    const [base = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!(step >= 1)) throw new Error(`oracle: bad step "${item}"`);
    let from: number;
    let to: number;
    if (base === '*' || base === '?') {
      from = lo;
      to = hi;
    } else if (base.includes('-')) {
      const [a = '', b = ''] = base.split('-');
      from = value(a, names, nameOffset);
      to = value(b, names, nameOffset);
    } else {
      from = value(base, names, nameOffset);
      to = stepText === undefined ? from : hi;
    }
    if (from < lo || to > hi || from > to) throw new Error(`oracle: bad range "${item}"`);
    for (let v = from; v <= to; v += step) out[v] = true;
  }
  return out;
}

const isSingle = (text: string): boolean => /^\d+$/.test(text);
const unrestricted = (text: string): boolean => text.startsWith('*') || text.startsWith('?');

export function parseForOracle(expression: string, dayMatch: 'or' | 'and' = 'or'): Spec {
  const trimmed = expression.trim();
  const nick = NICKNAMES[trimmed.toLowerCase()];
  const fields = (nick ?? trimmed).split(/\s+/);
  const hasSeconds = fields.length === 6;
  if (fields.length === 5) fields.unshift('0');
  if (fields.length !== 6) throw new Error(`oracle: ${fields.length} fields`);
  const [sec = '', min = '', hour = '', domText = '', month = '', dowText = ''] = fields;

  const domSpecials: DomSpecial[] = [];
  const domPlain: string[] = [];
  for (const item of domText.split(',')) {
    let m: RegExpMatchArray | null;
    if (item === 'L') domSpecials.push({ kind: 'last', minus: 0 });
    else if ((m = item.match(/^L-(\d+)$/))) domSpecials.push({ kind: 'last', minus: Number(m[1]) });
    else if (item === 'LW') domSpecials.push({ kind: 'lastWeekday' });
    else if ((m = item.match(/^(\d+)W$/))) domSpecials.push({ kind: 'nearest', day: Number(m[1]) });
    else domPlain.push(item);
  }
  const dowSpecials: DowSpecial[] = [];
  const dowPlain: string[] = [];
  for (const item of dowText.split(',')) {
    let m: RegExpMatchArray | null;
    if ((m = item.match(/^(\w+)#(\d)$/)))
      dowSpecials.push({ kind: 'nth', dow: value(m[1]!, DAYS, 0) % 7, nth: Number(m[2]) });
    else if ((m = item.match(/^(\w+)L$/))) dowSpecials.push({ kind: 'last', dow: value(m[1]!, DAYS, 0) % 7 });
    else dowPlain.push(item);
  }
  const dowTable = dowPlain.length ? expand(dowPlain.join(','), 0, 7, DAYS, 0) : [];
  const dow = new Array<boolean>(7).fill(false);
  for (let v = 0; v <= 7; v++) if (dowTable[v]) dow[v % 7] = true;

  return {
    seconds: expand(sec, 0, 59, null, 0),
    minutes: expand(min, 0, 59, null, 0),
    hours: expand(hour, 0, 23, null, 0),
    dom: domPlain.length ? expand(domPlain.join(','), 1, 31, null, 0) : [],
    domSpecials,
    months: expand(month, 1, 12, MONTHS, 1),
    dow,
    dowSpecials,
    dayOr: dayMatch === 'or' && !unrestricted(domText) && !unrestricted(dowText),
    hasSeconds,
    fixedTime: isSingle(sec) && isSingle(min) && isSingle(hour),
  };
}

const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
const weekday = (y: number, m: number, d: number): number => new Date(Date.UTC(y, m - 1, d)).getUTCDay();

function domMatches(spec: Spec, y: number, m: number, d: number): boolean {
  if (spec.dom[d]) return true;
  const last = daysIn(y, m);
  for (const s of spec.domSpecials) {
    if (s.kind === 'last') {
      if (d === last - s.minus) return true;
    } else if (s.kind === 'lastWeekday') {
      const w = weekday(y, m, last);
      const target = w === 6 ? last - 1 : w === 0 ? last - 2 : last;
      if (d === target) return true;
    } else {
      if (s.day > last) continue;
      const w = weekday(y, m, s.day);
      let target = s.day;
      if (w === 6) target = s.day === 1 ? 3 : s.day - 1;
      else if (w === 0) target = s.day === last ? s.day - 2 : s.day + 1;
      if (d === target) return true;
    }
  }
  return false;
}

function dowMatches(spec: Spec, y: number, m: number, d: number): boolean {
  const w = weekday(y, m, d);
  if (spec.dow[w]) return true;
  for (const s of spec.dowSpecials) {
    if (s.dow !== w) continue;
    if (s.kind === 'nth' && Math.ceil(d / 7) === s.nth) return true;
    if (s.kind === 'last' && d + 7 > daysIn(y, m)) return true;
  }
  return false;
}

function dayMatches(spec: Spec, y: number, m: number, d: number): boolean {
  if (!spec.months[m]) return false;
  const a = domMatches(spec, y, m, d);
  const b = dowMatches(spec, y, m, d);
  return spec.dayOr ? a || b : a && b;
}

// ---- UTC offsets from Intl, tabulated per zone and year ----

interface Transition {
  at: number;
  before: number;
  after: number;
}
interface YearTable {
  base: number;
  transitions: Transition[];
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const tables = new Map<string, YearTable>();

/** The zone's UTC offset (ms) at instant u, straight from Intl. */
export function intlOffset(zone: string, u: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(u)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(u / SECOND) * SECOND;
}

/** Offsets and transitions of one zone in one UTC year (transitions at instants in [Jan 1, next Jan 1)). */
function yearTable(zone: string, year: number): YearTable {
  const key = `${zone}|${year}`;
  let t = tables.get(key);
  if (t) return t;
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  const transitions: Transition[] = [];
  const scanStep = 7 * DAY; // no zone used here changes offset twice in a week (checked against a 6-hour scan, 1990-2130)
  let a = start - 1;
  let offA = intlOffset(zone, a);
  while (a < end - 1) {
    const b = Math.min(a + scanStep, end - 1);
    const offB = intlOffset(zone, b);
    if (offB !== offA) {
      // offsets change on whole seconds: search the first second whose offset differs
      let lo = Math.floor(a / SECOND); // offset === offA
      let hi = Math.floor(b / SECOND); // offset !== offA
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (intlOffset(zone, mid * SECOND) === offA) lo = mid;
        else hi = mid;
      }
      const at = hi * SECOND;
      transitions.push({ at, before: offA, after: intlOffset(zone, at) });
    }
    a = b;
    offA = offB;
  }
  t = { base: intlOffset(zone, start), transitions };
  tables.set(key, t);
  return t;
}

/** Offset transitions of a zone whose instants fall in the UTC years [from, to]. */
export function transitionsOf(zone: string, from: number, to: number): Transition[] {
  const out: Transition[] = [];
  for (let y = from; y <= to; y++) out.push(...yearTable(zone, y).transitions);
  return out;
}

const yearOf = (u: number): number => new Date(u).getUTCFullYear();

function offsetAt(zone: string, u: number): number {
  if (zone === 'UTC') return 0;
  const t = yearTable(zone, yearOf(u));
  let off = t.base;
  for (const tr of t.transitions) if (tr.at <= u) off = tr.after;
  return off;
}

/** The first transition strictly after u (searching the next few years), or Infinity. */
function nextTransitionAfter(zone: string, u: number): Transition | null {
  if (zone === 'UTC') return null;
  const y = yearOf(u);
  for (let yy = y; yy <= y + 1; yy++)
    for (const tr of yearTable(zone, yy).transitions) if (tr.at > u) return tr;
  return null;
}

function transitionAt(zone: string, u: number): Transition | null {
  if (zone === 'UTC') return null;
  for (const tr of yearTable(zone, yearOf(u)).transitions) if (tr.at === u) return tr;
  return null;
}

/** True when u's wall time already happened once before (second pass of a fall-back overlap). */
function isSecondPass(zone: string, u: number): boolean {
  if (zone === 'UTC') return false;
  const y = yearOf(u);
  for (const yy of [y - 1, y]) {
    for (const tr of yearTable(zone, yy).transitions) {
      const repeat = tr.before - tr.after;
      if (repeat > 0 && tr.at <= u && u < tr.at + repeat) return true;
    }
  }
  return false;
}

// ---- the oracle ----

/** For each kind of month (month, leap year, weekday of the 1st), the first year 2000-2399 that has it. */
const seenMonthKinds = new Map<string, number>();

export class CronOracle {
  readonly spec: Spec;
  readonly zone: string;
  readonly step: number;
  private readonly gap: 'shift' | 'skip';
  private readonly overlap: 'first' | 'both';

  constructor(expression: string, options: OracleOptions = {}) {
    this.spec = parseForOracle(expression, options.dayMatch ?? 'or');
    this.zone = options.timezone ?? 'UTC';
    this.step = this.spec.hasSeconds ? SECOND : MINUTE;
    this.gap = options.dst?.gap ?? (this.spec.fixedTime ? 'shift' : 'skip');
    this.overlap = options.dst?.overlap ?? (this.spec.fixedTime ? 'first' : 'both');
  }

  /** Does the wall time W (ms, read as if UTC) match every field? */
  wallMatches(W: number): boolean {
    const d = new Date(W);
    const s = this.spec;
    return (
      s.seconds[d.getUTCSeconds()] === true &&
      s.minutes[d.getUTCMinutes()] === true &&
      s.hours[d.getUTCHours()] === true &&
      dayMatches(s, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
    );
  }

  /** How far (ms) from wall time W to the next wall time that could match (at least one step). */
  private wallSkip(W: number): number {
    const d = new Date(W);
    const s = this.spec;
    const intoDay = W - Math.floor(W / DAY) * DAY;
    if (!s.months[d.getUTCMonth() + 1]) return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - W;
    if (!dayMatches(s, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())) return DAY - intoDay;
    if (!s.hours[d.getUTCHours()]) return HOUR - (intoDay % HOUR);
    if (!s.minutes[d.getUTCMinutes()]) return MINUTE - (intoDay % MINUTE);
    return this.step - (intoDay % this.step);
  }

  /** Does any wall time in [from, to) match? */
  private wallRangeMatches(from: number, to: number): boolean {
    for (let W = from; W < to; W += this.wallSkip(W)) if (this.wallMatches(W)) return true;
    return false;
  }

  /** Does instant u (aligned to the step) fire? */
  firesAt(u: number): boolean {
    if (u % this.step !== 0) return false;
    const W = u + offsetAt(this.zone, u);
    if (this.wallMatches(W) && (this.overlap === 'both' || !isSecondPass(this.zone, u))) return true;
    if (this.gap === 'shift') {
      const tr = transitionAt(this.zone, u);
      if (tr && tr.after > tr.before && this.wallRangeMatches(u + tr.before, u + tr.after)) return true;
    }
    return false;
  }

  private fires: boolean | undefined;

  /**
   * Whether the expression ever fires. Whether a day matches depends only on its month, the month's
   * length and the weekday of its 1st, and every (month, leap year or not, weekday of the 1st) occurs in
   * the 400-year Gregorian cycle; every time field holds some value, and in UTC every wall time exists.
   */
  everFires(): boolean {
    if (this.fires !== undefined) return this.fires;
    this.fires = false;
    for (let y = 2000; y < 2400 && !this.fires; y++) {
      for (let m = 1; m <= 12 && !this.fires; m++) {
        const leap = daysIn(y, 2) === 29;
        const key = `${m}|${leap}|${weekday(y, m, 1)}`;
        if (seenMonthKinds.has(key) && seenMonthKinds.get(key) !== y) continue;
        seenMonthKinds.set(key, y);
        for (let d = 1; d <= daysIn(y, m); d++) {
          if (dayMatches(this.spec, y, m, d)) {
            this.fires = true;
            break;
          }
        }
      }
    }
    return this.fires;
  }

  /** First fire strictly after t and at or before `end`, or null. */
  private scan(t: number, end: number): number | null {
    if (!this.everFires()) return null;
    let u = Math.floor(t / this.step) * this.step + this.step;
    while (u <= end) {
      if (this.firesAt(u)) return u;
      const W = u + offsetAt(this.zone, u);
      let v = u + Math.max(this.step, this.wallSkip(W));
      const tr = nextTransitionAfter(this.zone, u);
      if (tr && tr.at < v) v = tr.at;
      u = v;
    }
    return null;
  }

  /** First fire strictly after t, or null if none within `horizonYears`. */
  next(t: number, horizonYears = 401): number | null {
    return this.scan(t, t + horizonYears * YEAR_MS);
  }

  /**
   * Last fire strictly before t, or null if none within `horizonYears`: find a window [t - span, t) that
   * holds a fire (span growing), then binary-search the largest x such that a fire lies in [x, t) —
   * that x is the last fire.
   */
  prev(t: number, horizonYears = 401): number | null {
    const limit = horizonYears * YEAR_MS;
    const before = t - 1; // fires must be <= before
    const fireIn = (x: number): number | null => this.scan(x - 1, before); // first fire in [x, t)
    for (let span = 2 * this.step; ; span *= 4) {
      const first = fireIn(Math.floor((t - span) / this.step) * this.step);
      if (first !== null) {
        let lo = first; // a fire lies in [lo, t)
        let hi = Math.ceil(t / this.step) * this.step; // none in [hi, t)
        while (hi - lo > this.step) {
          const mid = Math.floor((lo + hi) / 2 / this.step) * this.step;
          if (mid <= lo) break;
          if (fireIn(mid) !== null) lo = mid;
          else hi = mid;
        }
        return lo;
      }
      if (span > limit) return null;
    }
  }

  matches(u: number): boolean {
    return this.next(u - 1) === u;
  }

  nextN(n: number, t: number): number[] {
    const out: number[] = [];
    let at = t;
    for (let i = 0; i < n; i++) {
      const f = this.next(at);
      if (f === null) break;
      out.push(f);
      at = f;
    }
    return out;
  }
}
