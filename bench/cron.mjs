// Cron next() throughput: bullbeat vs croner 11, cron-parser 5 and cron-schedule 6 (local time only), on a
// fixed suite of expressions over the same fixed instants, in UTC and in America/New_York; the memory of
// a compiled expression; and the disagreements between bullbeat, the peers and the brute-force oracle
// of the test suite (test/cron/oracle.ts, loaded through tsx).
//
//   npm run bench:cron            (builds if needed, then: node --expose-gc --import tsx bench/cron.mjs)
//   node --expose-gc --import tsx bench/cron.mjs --instants 500 --rounds 2   (a quicker run)
//
// Prints Markdown tables, ready for BENCHMARKS.md.

import { CronExpressionParser } from 'cron-parser';
import { parseCronExpression } from 'cron-schedule';
import { Cron } from 'croner';
import { CronParser } from '../dist/index.js';
import { CronOracle } from '../test/cron/oracle.ts';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N_INSTANTS = arg('instants', 2000);
const ROUNDS = arg('rounds', 7);
const N_MEMORY = arg('memory', 10_000);

if (new Date(Date.UTC(2026, 0, 1)).getHours() !== 0 || new Date(Date.UTC(2026, 6, 1)).getHours() !== 0) {
  console.error(
    'bench:cron: the machine time zone must be UTC (cron-schedule reads local time); run with TZ=UTC',
  );
  process.exit(1);
}
if (typeof global.gc !== 'function') {
  console.error('bench:cron: run with node --expose-gc (npm run bench:cron does)');
  process.exit(1);
}

/** The seeds' tables (000 sections 11.2, 11.3, 11.4; 001 examples) plus L, W, # forms and Feb 29. */
const SUITE = [
  '* * * * *',
  '0 * * * *',
  '0 0 * * *',
  '0 9 * * 1-5',
  '*/15 * * * *',
  '0 0 1 * *',
  '0 0 * * 0',
  '0 9,17 * * *',
  '0 0 1 1 *',
  '5 4 * * 0',
  '*/5 * * * *',
  '0 */2 * * *',
  '0 0 */3 * *',
  '1-30/5 * * * *',
  '0 9-17/2 * * *',
  '30 8,17 * * *',
  '0 8-18/2 * * 1-5',
  '0 0 L * *',
  '0 0 LW * *',
  '0 0 15W * *',
  '0 0 * * 1#3',
  '0 0 * * 5L',
  '0 0 29 2 *',
];
const ZONES = ['UTC', 'America/New_York'];

// fixed instants spread over 2020-2030 (a seeded generator, so every run measures the same ones)
function instants(n) {
  let s = 0x2f6e2b1;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const from = Date.UTC(2020, 0, 1);
  const to = Date.UTC(2030, 0, 1);
  return Array.from({ length: n }, () => Math.floor(from + rand() * (to - from)));
}
const TIMES = instants(N_INSTANTS);

/** Each library: compile(expr, zone) -> (t: epoch ms) => epoch ms | null; throws when unsupported. */
const LIBS = [
  {
    name: 'bullbeat',
    zones: ZONES,
    compile: (expr, zone) => {
      const p = new CronParser(expr, { timezone: zone });
      return (t) => p.next(t);
    },
  },
  {
    name: 'croner',
    zones: ZONES,
    compile: (expr, zone) => {
      const c = new Cron(expr, { timezone: zone, paused: true });
      return (t) => c.nextRun(new Date(t))?.getTime() ?? null;
    },
  },
  {
    name: 'cron-parser',
    zones: ZONES,
    compile: (expr, zone) => {
      const x = CronExpressionParser.parse(expr, { tz: zone });
      return (t) => {
        x.reset(new Date(t));
        return x.next().getTime();
      };
    },
  },
  {
    name: 'cron-schedule',
    zones: ['UTC'], // local time only; the process runs in UTC
    compile: (expr) => {
      const c = parseCronExpression(expr);
      return (t) => c.getNextDate(new Date(t)).getTime();
    },
  },
];

/** Documented semantic differences, so that a disagreement is not read as a bullbeat bug. */
const KNOWN = {
  'cron-schedule': {
    '0 0 15W * *': 'no W: reads "15W" as "15"',
    '0 0 * * 5L': 'no NL: reads "5L" as "5" (every Friday)',
    '0 0 * * 1#3': 'no N#M: reads "1#3" as "1" (every Monday)',
    '0 0 L * *': 'no L (parse error)',
    '0 0 LW * *': 'no LW (parse error)',
  },
  'cron-parser': {
    '0 0 15W * *': 'no W (parse error)',
    '0 0 LW * *': 'no LW (parse error)',
  },
};

const fmt = (x) =>
  x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} k` : x.toFixed(0);
const iso = (ms) => (ms === null ? 'null' : new Date(ms).toISOString());

// ---- 1. results (one pass, also the warm-up) and throughput ----
// Rounds are interleaved (round 1 of every library, then round 2, ...) so that load from other processes
// on a shared machine hits every library alike; each expression keeps its best round.
const results = {}; // results[zone][lib][expr] = Float64Array (NaN for null)
const perExprMs = {}; // perExprMs[zone][lib][expr] = best round, ms for N_INSTANTS calls
const compiled = {}; // compiled[zone][lib][expr] = fn
for (const zone of ZONES) {
  results[zone] = {};
  perExprMs[zone] = {};
  compiled[zone] = {};
  for (const lib of LIBS) {
    if (!lib.zones.includes(zone)) continue;
    const fns = (compiled[zone][lib.name] = {});
    for (const expr of SUITE) {
      try {
        fns[expr] = lib.compile(expr, zone);
      } catch {
        // unsupported syntax: no figures for this expression
      }
    }
    const res = (results[zone][lib.name] = {});
    for (const [expr, fn] of Object.entries(fns)) {
      const out = new Float64Array(TIMES.length);
      for (let i = 0; i < TIMES.length; i++) {
        let r;
        try {
          r = fn(TIMES[i]);
        } catch {
          r = null;
        }
        out[i] = r ?? Number.NaN;
      }
      res[expr] = out;
    }
    perExprMs[zone][lib.name] = {};
  }
}
// the slow peers get fewer rounds (a cron-parser round in New York takes tens of seconds)
const roundsFor = (lib) =>
  lib === 'cron-parser' ? Math.min(2, ROUNDS) : lib === 'croner' ? Math.min(3, ROUNDS) : ROUNDS;
for (let round = 0; round < ROUNDS; round++) {
  for (const zone of ZONES) {
    for (const lib of LIBS) {
      const fns = compiled[zone][lib.name];
      if (!fns || round >= roundsFor(lib.name)) continue;
      const times = perExprMs[zone][lib.name];
      for (const [expr, fn] of Object.entries(fns)) {
        const start = performance.now();
        for (let i = 0; i < TIMES.length; i++) {
          try {
            fn(TIMES[i]);
          } catch {
            // counted as a call
          }
        }
        const ms = performance.now() - start;
        times[expr] = Math.min(times[expr] ?? Number.POSITIVE_INFINITY, ms);
      }
    }
  }
}

const opsPerSec = (zone, lib, exprs) => {
  let ms = 0;
  for (const e of exprs) ms += perExprMs[zone][lib][e];
  return (exprs.length * TIMES.length) / (ms / 1000);
};
const supported = (zone, lib) => Object.keys(perExprMs[zone][lib] ?? {});

console.log(`# bench:cron  ${new Date().toISOString()}  node ${process.version}`);
console.log(
  `suite: ${SUITE.length} expressions x ${TIMES.length} instants (2020-2030); best of ${ROUNDS} interleaved rounds per expression (croner ${roundsFor('croner')}, cron-parser ${roundsFor('cron-parser')})\n`,
);
console.log('## next() throughput\n');
console.log(
  '| zone | library | expressions | ops/s (its own suite) | bullbeat ops/s on the same expressions | bullbeat / peer |',
);
console.log('|---|---|---|---|---|---|');
const ratios = {};
for (const zone of ZONES) {
  for (const lib of LIBS) {
    if (!perExprMs[zone][lib.name]) continue;
    const exprs = supported(zone, lib.name);
    const own = opsPerSec(zone, lib.name, exprs);
    const ours = opsPerSec(zone, 'bullbeat', exprs);
    ratios[`${zone}|${lib.name}`] = ours / own;
    console.log(
      `| ${zone} | ${lib.name} | ${exprs.length}/${SUITE.length} | ${fmt(own)} | ${fmt(ours)} | ${lib.name === 'bullbeat' ? '-' : `${(ours / own).toFixed(1)}x`} |`,
    );
  }
}

console.log('\n### per expression (ops/s)\n');
const header = ['expression'];
for (const zone of ZONES)
  for (const lib of LIBS)
    if (perExprMs[zone][lib.name]) header.push(`${lib.name} ${zone === 'UTC' ? 'UTC' : 'NY'}`);
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const expr of SUITE) {
  const row = [`\`${expr}\``];
  for (const zone of ZONES)
    for (const lib of LIBS) {
      if (!perExprMs[zone][lib.name]) continue;
      const ms = perExprMs[zone][lib.name][expr];
      row.push(ms === undefined ? 'n/a' : fmt(TIMES.length / (ms / 1000)));
    }
  console.log(`| ${row.join(' | ')} |`);
}

// ---- 2. memory of a compiled expression ----
console.log(`\n## memory of a compiled expression (heap delta over ${N_MEMORY} instances, after gc)\n`);
console.log('| library | bytes per compiled expression | after one next() each |');
console.log('|---|---|---|');
const keep = [];
for (const lib of LIBS) {
  const exprs = supported('UTC', lib.name);
  const measure = (warm) => {
    keep.length = 0;
    global.gc();
    global.gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < N_MEMORY; i++) {
      const fn = lib.compile(exprs[i % exprs.length], 'UTC');
      if (warm) fn(TIMES[i % TIMES.length]);
      keep.push(fn);
    }
    global.gc();
    global.gc();
    const bytes = (process.memoryUsage().heapUsed - before) / N_MEMORY;
    keep.length = 0;
    return bytes;
  };
  const cold = measure(false);
  const warm = measure(true);
  console.log(`| ${lib.name} | ${Math.round(cold)} | ${Math.round(warm)} |`);
}

// ---- 3. agreement ----
console.log('\n## disagreements (expression x instant pairs where next() differs)\n');
let oracleDisagreements = 0;
const oracleExamples = [];
const oracleStart = performance.now();
for (const zone of ZONES) {
  for (const expr of SUITE) {
    const oracle = new CronOracle(expr, { timezone: zone });
    const ours = results[zone].bullbeat[expr];
    for (let i = 0; i < TIMES.length; i++) {
      const want = oracle.next(TIMES[i]) ?? Number.NaN;
      if (!Object.is(want, ours[i])) {
        oracleDisagreements++;
        if (oracleExamples.length < 10)
          oracleExamples.push(
            `${zone} "${expr}" after ${iso(TIMES[i])}: oracle ${iso(want)}, bullbeat ${iso(ours[i])}`,
          );
      }
    }
  }
}
const oracleSeconds = (performance.now() - oracleStart) / 1000;
console.log(
  `bullbeat vs the brute-force oracle: **${oracleDisagreements}** of ${ZONES.length * SUITE.length * TIMES.length} (${oracleSeconds.toFixed(1)} s of oracle)`,
);
for (const e of oracleExamples) console.log(`- ${e}`);

console.log('\n| zone | peer | disagreements with bullbeat | where (expression: count; reason) |');
console.log('|---|---|---|---|');
const peerExamples = [];
for (const zone of ZONES) {
  for (const lib of LIBS) {
    if (lib.name === 'bullbeat' || !results[zone][lib.name]) continue;
    let total = 0;
    const where = [];
    for (const expr of SUITE) {
      const theirs = results[zone][lib.name][expr];
      const known = KNOWN[lib.name]?.[expr];
      if (!theirs) {
        where.push(`\`${expr}\`: unsupported${known ? ` (${known})` : ''}`);
        continue;
      }
      const ours = results[zone].bullbeat[expr];
      let n = 0;
      for (let i = 0; i < TIMES.length; i++) {
        if (!Object.is(theirs[i], ours[i])) {
          n++;
          if (peerExamples.length < 10 && !known)
            peerExamples.push(
              `${zone} ${lib.name} "${expr}" after ${iso(TIMES[i])}: ${lib.name} ${iso(theirs[i])}, bullbeat ${iso(ours[i])}`,
            );
        }
      }
      total += n;
      if (n > 0) where.push(`\`${expr}\`: ${n}${known ? ` (${known})` : ''}`);
    }
    console.log(`| ${zone} | ${lib.name} | ${total} | ${where.join('; ') || '-'} |`);
  }
}
if (peerExamples.length) {
  console.log('\nexamples of peer disagreements not explained by a documented syntax difference:');
  for (const e of peerExamples) console.log(`- ${e}`);
}

// ---- 4. targets ----
const utcVsSchedule = ratios['UTC|cron-schedule'];
const nyVsCroner = ratios['America/New_York|croner'];
console.log('\n## targets\n');
console.log(
  `- UTC, bullbeat >= 2x cron-schedule: ${utcVsSchedule.toFixed(1)}x -> ${utcVsSchedule >= 2 ? 'met' : 'NOT met'}`,
);
console.log(
  `- New York, bullbeat >= 40x croner: ${nyVsCroner.toFixed(1)}x -> ${nyVsCroner >= 40 ? 'met' : 'NOT met'}`,
);
console.log(
  `- no disagreement with the oracle: ${oracleDisagreements === 0 ? 'met' : `NOT met (${oracleDisagreements})`}`,
);
