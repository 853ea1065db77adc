import { CronParser } from './cron-parser.js';
import { NICKNAMES } from './pattern.js';

/**
 * Cron expressions and triggers in plain words, for people reading the dashboard:
 * `describeCron('0 9 * * 1-5', { timezone: 'America/New_York' })` →
 * `At 09:00, Monday through Friday (America/New_York)`.
 *
 * The expression is validated with `CronParser` first (so a bad one throws `CronSyntaxError`), then
 * described field by field from its text. The wording aims to be unambiguous, not literary.
 */
export interface DescribeOptions {
  /** IANA zone the expression is read in, shown in parentheses. Default: `'UTC'`. */
  timezone?: string;
  /** How day-of-month and day-of-week combine when both are restricted. Default: `'or'`. */
  dayMatch?: 'or' | 'and';
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH_ABBR = MONTHS.map((m) => m.slice(0, 3).toUpperCase());
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_ABBR = DAYS.map((d) => d.slice(0, 3).toUpperCase());
const ORDINALS = ['', 'first', 'second', 'third', 'fourth', 'fifth'];

const isStar = (f: string) => f === '*' || f === '?';
const isNumber = (f: string) => /^\d+$/.test(f);
const pad = (n: number | string) => String(n).padStart(2, '0');

/** `a`, `a and b`, `a, b and c`. */
function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] ?? s[v] ?? s[0]!);
}

/** A numeric value of a field, names resolved (`MON` → 1, `JAN` → 1). */
function num(token: string, names?: readonly string[], base = 0): number {
  if (isNumber(token)) return Number(token);
  const i = names?.indexOf(token.toUpperCase()) ?? -1;
  return i + base;
}

type Namer = (n: number) => string;

/**
 * One list item of a plain field in words: `every 15 minutes`, `minutes 10 through 20`, ...
 * `unit` is singular (`minute`); `name` renders a value.
 */
function item(text: string, unit: string, name: Namer, names?: readonly string[], base = 0): string {
  const [range = '', stepText] = text.split('/');
  const step = stepText === undefined ? 1 : Number(stepText);
  const every = step === 1 ? `every ${unit}` : `every ${step} ${unit}s`;
  if (isStar(range)) return every;
  const dash = range.indexOf('-', 1);
  if (dash > 0) {
    const from = name(num(range.slice(0, dash), names, base));
    const to = name(num(range.slice(dash + 1), names, base));
    return step === 1 ? `${from} through ${to}` : `${every} from ${from} through ${to}`;
  }
  const value = name(num(range, names, base));
  return stepText === undefined ? value : `${every} starting at ${value}`;
}

/** A plain field (second, minute, hour, month) in words, or '' when it does not restrict. */
function field(text: string, unit: string, name: Namer, names?: readonly string[], base = 0): string {
  if (isStar(text)) return '';
  const parts = text.split(',').map((p) => item(p, unit, name, names, base));
  const plain = text.split(',').every((p) => !p.includes('/') && !p.includes('-'));
  return plain ? `${unit} ${joinWords(parts)}` : joinWords(parts);
}

function timePhrase(sec: string, min: string, hour: string, hasSeconds: boolean): string {
  const clock = (h: number, m: number, s: number) => `${pad(h)}:${pad(m)}${s === 0 ? '' : `:${pad(s)}`}`;
  if (isNumber(sec) && isNumber(min)) {
    const hours = hour.split(',');
    if (hours.every(isNumber)) {
      return `At ${joinWords(hours.map((h) => clock(Number(h), Number(min), Number(sec))))}`;
    }
  }
  const parts: string[] = [];
  if (hasSeconds && sec !== '0') parts.push(isStar(sec) ? 'every second' : field(sec, 'second', String));
  if (isStar(min)) {
    if (parts.length === 0) parts.push('every minute');
  } else if (isNumber(min) && !isStar(hour)) {
    parts.push(`at minute ${min}`);
  } else {
    parts.push(
      field(min, 'minute', String)
        .replace(/^minute /, 'at minute ')
        .replace(/^minutes /, 'at minutes '),
    );
  }
  if (isStar(hour)) {
    if (isNumber(min) && parts.length === 1) parts[0] = `${parts[0]} of every hour`;
  } else {
    parts.push(
      hour
        .split(',')
        .map((h) => {
          if (isNumber(h)) return `during the ${pad(h)}:00 hour`;
          const [range = '', step] = h.split('/');
          const dash = range.indexOf('-', 1);
          if (step === undefined && dash > 0) {
            return `from ${pad(range.slice(0, dash))}:00 through ${pad(range.slice(dash + 1))}:59`;
          }
          return item(h, 'hour', (n) => `${pad(n)}:00`);
        })
        .join(' and '),
    );
  }
  const text = parts.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function dayOfMonthPhrase(text: string): string {
  const parts = text.split(',').map((p) => {
    const upper = p.toUpperCase();
    if (upper === 'L') return 'the last day of the month';
    if (upper === 'LW') return 'the last weekday of the month';
    if (/^L-\d+$/.test(upper)) {
      const n = Number(upper.slice(2));
      return `${n} day${n === 1 ? '' : 's'} before the last day of the month`;
    }
    if (/^\d+W$/.test(upper)) return `the weekday nearest the ${ordinal(Number(upper.slice(0, -1)))}`;
    if (isNumber(p)) return `the ${ordinal(Number(p))}`;
    const [range = '', step] = p.split('/');
    const dash = range.indexOf('-', 1);
    if (step === undefined && dash > 0) {
      return `the ${ordinal(Number(range.slice(0, dash)))} through the ${ordinal(Number(range.slice(dash + 1)))}`;
    }
    return item(p, 'day', (n) => `the ${ordinal(n)}`);
  });
  const words = joinWords(parts);
  if (words.startsWith('every')) return `${words} of the month`;
  return words.endsWith('month') ? `on ${words}` : `on ${words} of the month`;
}

function dayOfWeekPhrase(text: string): string {
  const dayName = (n: number) => DAYS[n % 7] ?? String(n);
  const parts = text.split(',').map((p) => {
    const hash = p.indexOf('#');
    if (hash >= 0) {
      const day = num(p.slice(0, hash), DAY_ABBR);
      return `the ${ORDINALS[Number(p.slice(hash + 1))]} ${dayName(day)} of the month`;
    }
    if (/^(\d+|[A-Za-z]{3})L$/i.test(p))
      return `the last ${dayName(num(p.slice(0, -1), DAY_ABBR))} of the month`;
    return item(p, 'day of the week', dayName, DAY_ABBR);
  });
  const words = joinWords(parts);
  if (/^(every|the)/.test(words)) return words.startsWith('the') ? `on ${words}` : words;
  return words.includes(' through ') ? words : `on ${words}`;
}

/** A cron expression in plain words, followed by its time zone in parentheses. */
export function describeCron(expression: string, options: DescribeOptions = {}): string {
  const parser = new CronParser(expression, {
    timezone: options.timezone ?? 'UTC',
    ...(options.dayMatch !== undefined && { dayMatch: options.dayMatch }),
  });
  const trimmed = expression.trim();
  const source = trimmed.startsWith('@') ? (NICKNAMES[trimmed.toLowerCase()] ?? trimmed) : trimmed;
  const fields = source.split(/\s+/);
  const hasSeconds = fields.length === 6;
  const [sec = '0', min = '*', hour = '*', dom = '*', month = '*', dow = '*'] = hasSeconds
    ? fields
    : ['0', ...fields];

  const parts = [timePhrase(sec, min, hour, hasSeconds)];
  const days: string[] = [];
  if (!isStar(dom)) days.push(dayOfMonthPhrase(dom));
  if (!isStar(dow)) days.push(dayOfWeekPhrase(dow));
  if (days.length === 2 && (isStar(dom.charAt(0)) || isStar(dow.charAt(0)))) {
    // A field starting with `*` (e.g. `*/2`) counts as unrestricted: both must match.
    parts.push(days.join(' and '));
  } else if (days.length > 0) {
    parts.push(days.join(parser.dayMatch === 'and' ? ' and ' : ' or '));
  }
  if (!isStar(month)) {
    const words = field(month, 'month', (n) => MONTHS[n - 1] ?? String(n), MONTH_ABBR, 1);
    parts.push(
      words.startsWith('every') ? words : `in ${words.replace(/^month /, '').replace(/^months /, '')}`,
    );
  }
  return `${parts.join(', ')} (${parser.timezone})`;
}

/** A duration in seconds in words: `30 seconds`, `5 minutes`, `1 hour 30 minutes`, `1.5 seconds`. */
export function describeSeconds(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < 60) {
    const s = Number(seconds.toFixed(3));
    return `${s} second${s === 1 ? '' : 's'}`;
  }
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const words: string[] = [];
  let rest = seconds;
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) words.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
    rest -= n * size;
  }
  return words.join(' ');
}
