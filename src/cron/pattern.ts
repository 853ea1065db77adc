import { type CronField, CronSyntaxError } from '../errors/cron-syntax-error.js';
import { bitRange, popCount, popCount60 } from './bits.js';

/**
 * A cron expression compiled to bitmasks. Seconds and minutes are 60-bit masks (`lo`/`hi` pairs),
 * hours, days and months 32-bit masks; the day-of-month and day-of-week specials (`L`, `W`, `#`) are
 * kept as short lists and resolved per month by `DaySet`.
 */
export interface CronPattern {
  readonly hasSeconds: boolean;
  readonly secLo: number;
  readonly secHi: number;
  readonly minLo: number;
  readonly minHi: number;
  /** Bits 0-23. */
  readonly hours: number;
  /** Bits 1-12. */
  readonly months: number;
  /** Plain days of the month, bits 1-31. */
  readonly domMask: number;
  /** `L` (0) and `L-n` (n): days counted back from the month's last day. */
  readonly domFromLast: readonly number[];
  /** `LW`: the last weekday (Monday-Friday) of the month. */
  readonly domLastWeekday: boolean;
  /** `NW`: the weekday nearest day N, within the month. */
  readonly domNearestWeekday: readonly number[];
  /** The day-of-month field starts with `*` or `?` (Vixie: it does not restrict on its own). */
  readonly domStar: boolean;
  /** Plain weekdays, bits 0-6 (Sunday = 0). */
  readonly dowMask: number;
  /** `N#M`, encoded `N * 8 + M`. */
  readonly dowNth: readonly number[];
  /** `NL`: the last weekday N of the month. */
  readonly dowLast: readonly number[];
  readonly dowStar: boolean;
  /** Single values in second, minute and hour: the fixed-time DST rules apply. */
  readonly fixedTime: boolean;
}

/** The nicknames and the expressions they stand for. */
export const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  field: CronField;
  min: number;
  max: number;
  /** Names for values, the first naming `nameBase`. */
  names?: readonly string[];
  nameBase?: number;
}

const SECOND: FieldSpec = { field: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { field: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { field: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { field: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldSpec = { field: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 };
const DAY_OF_WEEK: FieldSpec = { field: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, nameBase: 0 };

/** The values a plain field allows, as a 64-entry boolean table, plus whether it starts with `*`. */
interface PlainField {
  values: boolean[];
  star: boolean;
}

class FieldReader {
  constructor(
    private readonly expression: string,
    private readonly spec: FieldSpec,
    private readonly fieldText: string,
  ) {}

  fail(item: string, reason: string): never {
    const text = item === this.fieldText || item === '' ? this.fieldText : item;
    throw new CronSyntaxError(this.expression, this.spec.field, text, reason);
  }

  /** A number or a name, range-checked. */
  value(token: string, item: string): number {
    const { min, max, names, nameBase = 0 } = this.spec;
    let n: number;
    if (/^\d+$/.test(token)) {
      n = Number(token);
    } else if (/^[A-Za-z]+$/.test(token)) {
      const index = names?.indexOf(token.toUpperCase()) ?? -1;
      if (index < 0) {
        this.fail(
          item,
          names ? `unknown name "${token}" (expected ${names.join(', ')})` : `"${token}" is not a number`,
        );
      }
      return index + nameBase;
    } else {
      this.fail(item, `cannot read "${token}": expected a number, a range (1-5), a step (*/15) or *`);
    }
    if (n < min || n > max) this.fail(item, `out of range ${min}-${max}`);
    return n;
  }

  /** `*`, `?`, `N`, `N-M`, each optionally with `/S`; `N/S` runs from N to the field's end. */
  range(item: string, values: boolean[]): void {
    const { min, max } = this.spec;
    const slash = item.indexOf('/');
    const base = slash < 0 ? item : item.slice(0, slash);
    let step = 1;
    if (slash >= 0) {
      const stepText = item.slice(slash + 1);
      step = /^\d+$/.test(stepText) ? Number(stepText) : Number.NaN;
      if (!(step >= 1 && step <= max))
        this.fail(item, `step "${stepText}" must be a whole number from 1 to ${max}`);
    }
    let from: number;
    let to: number;
    if (base === '*' || base === '?') {
      from = min;
      to = this.spec.field === 'day-of-week' ? 6 : max;
    } else {
      const dash = base.indexOf('-', 1);
      if (dash > 0) {
        from = this.value(base.slice(0, dash), item);
        to = this.value(base.slice(dash + 1), item);
        if (from > to) this.fail(item, `range start ${from} is after its end ${to}`);
      } else {
        from = this.value(base, item);
        to = slash >= 0 ? max : from;
      }
    }
    for (let v = from; v <= to; v += step) values[v] = true;
  }
}

function plainField(expression: string, spec: FieldSpec, text: string): PlainField {
  const reader = new FieldReader(expression, spec, text);
  const values: boolean[] = [];
  for (const item of text.split(',')) {
    if (item === '') reader.fail(item, 'empty list item');
    reader.range(item, values);
  }
  return { values, star: text.startsWith('*') || text.startsWith('?') };
}

function mask32(values: readonly boolean[]): number {
  let m = 0;
  for (let v = 0; v < 32; v++) if (values[v]) m |= 1 << v;
  return m;
}

function mask60(values: readonly boolean[]): [lo: number, hi: number] {
  let hi = 0;
  for (let v = 32; v < 60; v++) if (values[v]) hi |= 1 << (v - 32);
  return [mask32(values), hi];
}

interface DayOfMonth {
  mask: number;
  fromLast: number[];
  lastWeekday: boolean;
  nearestWeekday: number[];
  star: boolean;
}

function dayOfMonthField(expression: string, text: string): DayOfMonth {
  const reader = new FieldReader(expression, DAY_OF_MONTH, text);
  const values: boolean[] = [];
  const out: DayOfMonth = { mask: 0, fromLast: [], lastWeekday: false, nearestWeekday: [], star: false };
  for (const item of text.split(',')) {
    const upper = item.toUpperCase();
    if (item === '') reader.fail(item, 'empty list item');
    else if (upper === 'L') out.fromLast.push(0);
    else if (upper === 'LW') out.lastWeekday = true;
    else if (/^L-\d+$/.test(upper)) {
      const n = Number(upper.slice(2));
      if (n < 1 || n > 30) reader.fail(item, `the offset after "L-" must be from 1 to 30`);
      out.fromLast.push(n);
    } else if (/^\d+W$/.test(upper)) out.nearestWeekday.push(reader.value(upper.slice(0, -1), item));
    else if (/[LW#]/i.test(item) && !/^[A-Za-z]+$/.test(item)) {
      reader.fail(item, `cannot read "${item}": day-of-month takes L, L-n, LW or NW (e.g. 15W)`);
    } else reader.range(item, values);
  }
  out.mask = mask32(values);
  out.star = text.startsWith('*') || text.startsWith('?');
  return out;
}

interface DayOfWeek {
  mask: number;
  nth: number[];
  last: number[];
  star: boolean;
}

function dayOfWeekField(expression: string, text: string): DayOfWeek {
  const reader = new FieldReader(expression, DAY_OF_WEEK, text);
  const values: boolean[] = [];
  const out: DayOfWeek = { mask: 0, nth: [], last: [], star: false };
  const weekday = (token: string, item: string) => reader.value(token, item) % 7;
  for (const item of text.split(',')) {
    if (item === '') reader.fail(item, 'empty list item');
    const hash = item.indexOf('#');
    if (hash >= 0) {
      const nthText = item.slice(hash + 1);
      const nth = /^[1-5]$/.test(nthText) ? Number(nthText) : 0;
      if (nth === 0) reader.fail(item, `"#${nthText}": the occurrence must be from 1 to 5`);
      out.nth.push(weekday(item.slice(0, hash), item) * 8 + nth);
    } else if (/^(\d+|[A-Za-z]{3})L$/i.test(item)) {
      out.last.push(weekday(item.slice(0, -1), item));
    } else if (item.toUpperCase() === 'L') {
      reader.fail(item, 'use NL for the last weekday N of the month (e.g. 5L for the last Friday)');
    } else reader.range(item, values);
  }
  if (values[7]) values[0] = true;
  out.mask = mask32(values) & 0x7f;
  out.star = text.startsWith('*') || text.startsWith('?');
  return out;
}

/** Parse a cron expression (5 fields, 6 with leading seconds, or a nickname) into a pattern. */
export function parsePattern(expression: string): CronPattern {
  if (typeof expression !== 'string') {
    throw new CronSyntaxError(String(expression), 'expression', String(expression), 'expected a string');
  }
  const trimmed = expression.trim();
  const source = trimmed.startsWith('@') ? NICKNAMES[trimmed.toLowerCase()] : trimmed;
  if (source === undefined) {
    throw new CronSyntaxError(
      expression,
      'expression',
      trimmed,
      `unknown nickname "${trimmed}" (expected one of ${Object.keys(NICKNAMES).join(', ')})`,
    );
  }
  const fields = source.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronSyntaxError(
      expression,
      'expression',
      trimmed,
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with leading seconds), got ${fields.length}`,
    );
  }
  const hasSeconds = fields.length === 6;
  const [secText, minText, hourText, domText, monText, dowText] = hasSeconds ? fields : ['0', ...fields];
  const sec = plainField(expression, SECOND, secText as string);
  const min = plainField(expression, MINUTE, minText as string);
  const hour = plainField(expression, HOUR, hourText as string);
  const dom = dayOfMonthField(expression, domText as string);
  const month = plainField(expression, MONTH, monText as string);
  const dow = dayOfWeekField(expression, dowText as string);

  const [secLo, secHi] = mask60(sec.values);
  const [minLo, minHi] = mask60(min.values);
  const hours = mask32(hour.values) & bitRange(0, 23);
  return {
    hasSeconds,
    secLo,
    secHi,
    minLo,
    minHi,
    hours,
    months: mask32(month.values) & bitRange(1, 12),
    domMask: dom.mask,
    domFromLast: dom.fromLast,
    domLastWeekday: dom.lastWeekday,
    domNearestWeekday: dom.nearestWeekday,
    domStar: dom.star,
    dowMask: dow.mask,
    dowNth: dow.nth,
    dowLast: dow.last,
    dowStar: dow.star,
    fixedTime: popCount60(secLo, secHi) === 1 && popCount60(minLo, minHi) === 1 && popCount(hours) === 1,
  };
}
