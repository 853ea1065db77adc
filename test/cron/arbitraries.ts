// fast-check generators for the cron property tests: valid expressions from the grammar (specials
// included), options (zones, dayMatch, DST overrides) and instants (1990-2060, half near a transition).
import fc from 'fast-check';
import type { CronOptions } from '../../src/cron/cron-options.js';
import { transitionsOf } from './oracle.js';

export const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'America/Santiago',
  'America/Sao_Paulo',
  'Pacific/Apia',
  'Asia/Kolkata',
];

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/**
 * One plain list item over [lo, hi]: `N`, `N-M` (N < M), `*` (or `?`), `*\/S`, `N-M/S`, `N/S`.
 * Steps are kept small enough that a stepped item always holds at least two values, so that "single
 * value" (the fixed-time test) means the same thing syntactically and semantically.
 */
function plainItem(lo: number, hi: number, opts: { name?: (v: number) => string; stepFromN?: boolean } = {}) {
  const show = (v: number) => fc.constant(v).map((x) => String(x));
  const val = (v: number) => (opts.name ? fc.oneof(show(v), fc.constant(opts.name(v))) : show(v));
  const n = fc.integer({ min: lo, max: hi });
  const range = fc
    .tuple(fc.integer({ min: lo, max: hi - 1 }), fc.integer({ min: 1, max: hi - lo }))
    .map(([a, d]) => [a, Math.min(hi, a + d)] as const);
  const items = [
    n.chain(val),
    range.chain(([a, b]) => fc.tuple(val(a), val(b)).map(([x, y]) => `${x}-${y}`)),
    fc.constantFrom('*'),
    fc.integer({ min: 1, max: Math.max(1, Math.floor((hi - lo) / 2)) }).map((s) => `*/${s}`),
    range.chain(([a, b]) => fc.integer({ min: 1, max: b - a }).map((s) => `${a}-${b}/${s}`)),
  ];
  if (opts.stepFromN !== false)
    items.push(
      fc
        .integer({ min: lo, max: hi - 1 })
        .chain((a) => fc.integer({ min: 1, max: hi - a }).map((s) => `${a}/${s}`)),
    );
  return fc.oneof(...items);
}

const list = (item: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: item },
    { weight: 1, arbitrary: fc.array(item, { minLength: 2, maxLength: 3 }).map((xs) => xs.join(',')) },
  );

/** A field that may also be a single value (common in real expressions: "0 9 ..."). */
const timeField = (hi: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: hi }).map(String) },
    { weight: 2, arbitrary: list(plainItem(0, hi)) },
  );

const domField = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('*', '?') },
  { weight: 3, arbitrary: list(plainItem(1, 31)) },
  { weight: 1, arbitrary: fc.constant('L') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 7 }).map((n) => `L-${n}`) },
  { weight: 1, arbitrary: fc.constant('LW') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map((n) => `${n}W`) },
);

const monthField = fc.oneof(
  { weight: 4, arbitrary: fc.constant('*') },
  { weight: 2, arbitrary: list(plainItem(1, 12, { name: (v) => MONTHS[v - 1]! })) },
);

// day of week: ranges may end at 7; no `N/S` (whether it runs to 6 or 7 is not specified)
const dowField = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('*', '?') },
  {
    weight: 3,
    arbitrary: list(plainItem(0, 7, { name: (v) => (v < 7 ? DAYS[v]! : '7'), stepFromN: false })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 5 }))
      .map(([d, n]) => `${d}#${n}`),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 7 }).map((d) => `${d}L`) },
);

export const expressionArb = fc
  .tuple(
    fc.boolean(),
    timeField(59),
    timeField(59),
    fc.oneof(
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 23 }).map(String) },
      { weight: 2, arbitrary: list(plainItem(0, 23)) },
    ),
    domField,
    monthField,
    dowField,
  )
  .map(([seconds, s, m, h, dom, mon, dow]) =>
    seconds ? `${s} ${m} ${h} ${dom} ${mon} ${dow}` : `${m} ${h} ${dom} ${mon} ${dow}`,
  );

const dstArb = fc.option(
  fc.record(
    {
      gap: fc.constantFrom('shift' as const, 'skip' as const),
      overlap: fc.constantFrom('first' as const, 'both' as const),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

export const optionsArb: fc.Arbitrary<CronOptions> = fc
  .tuple(
    fc.constantFrom(...ZONES),
    fc.option(fc.constantFrom('or' as const, 'and' as const), { nil: undefined }),
    dstArb,
  )
  .map(([timezone, dayMatch, dst]) => {
    const o: CronOptions = { timezone };
    if (dayMatch) o.dayMatch = dayMatch;
    if (dst) o.dst = dst;
    return o;
  });

const LO = Date.UTC(1990, 0, 1);
const HI = Date.UTC(2060, 0, 1);

/** Instants: uniform over 1990-2060, or within six hours of one of the zone's transitions. */
function instantArb(zone: string): fc.Arbitrary<number> {
  const uniform = fc.integer({ min: LO, max: HI });
  if (zone === 'UTC' || zone === 'Asia/Kolkata') return uniform;
  const near = fc
    .tuple(
      fc.integer({ min: 1995, max: 2055 }),
      fc.nat(),
      fc.integer({ min: -6 * 3600, max: 6 * 3600 }),
      fc.nat(999),
    )
    .map(([year, k, s, ms]) => {
      const tr = transitionsOf(zone, year, year);
      if (tr.length === 0) return Date.UTC(year, 0, 1) + s * 1000 + ms;
      return tr[k % tr.length]!.at + s * 1000 + ms;
    });
  return fc.oneof(uniform, near);
}

export const caseArb = fc
  .tuple(expressionArb, optionsArb)
  .chain(([expr, options]) =>
    fc.tuple(fc.constant(expr), fc.constant(options), instantArb(options.timezone!)),
  );

/**
 * Dense expressions for the DST property: every day, times that often fall in a gap or an overlap,
 * in zones with DST, at instants within six hours of a transition.
 */
const denseMinute = fc.constantFrom('*', '*/5', '0,30', '15', '0', '30', '45', '*/20');
const denseHour = fc.constantFrom('*', '0', '1', '2', '3', '23', '0-3', '1,2', '*/2', '22-23', '0,12');
const dstZones = ZONES.filter((z) => z !== 'UTC' && z !== 'Asia/Kolkata');

export const dstCaseArb = fc
  .tuple(
    fc.option(fc.constantFrom('0', '*/15', '30', '*'), { nil: undefined }),
    denseMinute,
    denseHour,
    fc.constantFrom(...dstZones),
    dstArb,
  )
  .chain(([sec, min, hour, timezone, dst]) => {
    const expr = sec === undefined ? `${min} ${hour} * * *` : `${sec} ${min} ${hour} * * *`;
    const options: CronOptions = dst ? { timezone, dst } : { timezone };
    const near = fc
      .tuple(fc.integer({ min: 1995, max: 2055 }), fc.nat(), fc.integer({ min: -6 * 3600, max: 3 * 3600 }))
      .map(([year, k, s]) => {
        const tr = transitionsOf(timezone, year, year);
        return tr.length === 0 ? Date.UTC(year, 0, 1) + s * 1000 : tr[k % tr.length]!.at + s * 1000;
      });
    return fc.tuple(fc.constant(expr), fc.constant(options), near);
  });
