import { accessSync, constants, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowFirst } from './test/setup/slow-first.js';

// The test tiers (vitest projects). `npm test` runs them all: first unit, redis, process and volume
// side by side in one pool of WORKERS forks, the longest files first (test/setup/slow-first.ts), then chaos
// alone, two files at a time, then chaos-tight, two at a time. `npm run test:fast` runs unit only.
// A new test file lands in `redis` unless it is listed below.

/** Pure code: no Redis, no processes, no real waits of note. `npm run test:fast`. */
const UNIT = [
  'test/architecture/file-size.test.ts',
  'test/architecture/layering.test.ts',
  'test/architecture/redis-door.test.ts', // one type-checked program over the house
  'test/cron/**/*.test.ts',
  'test/cli/fleet-notes.test.ts',
  'test/dashboard/backoff-words.test.ts',
  'test/dashboard/lateness.test.ts',
  'test/dashboard/time-zone.test.ts',
  'test/triggers/**/*.test.ts',
  'test/insight/agenda.test.ts',
  'test/insight/explain-lost.test.ts',
  'test/queue/middleware/**/*.test.ts',
  'test/queue/lazy-logger.test.ts',
  'test/queue/pipeline.test.ts',
  'test/queue/run-ctx.test.ts',
  'test/queue/run-stop.test.ts',
  'test/scheduler/claim-renewer.test.ts',
  'test/scheduler/claim-timer.test.ts',
  'test/scheduler/recheck-ahead.test.ts',
  'test/scheduler/redis-clock.test.ts',
  'test/store/claim-row.test.ts',
  'test/store/owed-run.test.ts',
  'test/store/partitions.test.ts',
  'test/store/record-spans.test.ts',
  'test/store/run-path-scripts.test.ts',
  'test/store/script-batcher.test.ts',
  'test/store/script-layouts.test.ts',
  'test/store/store-scripts.test.ts',
  'test/tracing/tracing-off.test.ts',
];

/** Tests that start processes: the CLI's services, worker processes, clusters, packs, a browser. */
const PROCESS = [
  'test/cli/alerts.test.ts', // a scheduler process with --notifier
  'test/cli/data-format.test.ts', // scheduler, worker and status processes on a newer format
  'test/cli/jobs-module.test.ts',
  'test/cli/logs.test.ts',
  'test/cli/migrate-bullmq.test.ts', // the app and the scheduler as bullbeat processes
  'test/cli/npm-start.test.ts',
  'test/cli/output-hygiene.test.ts',
  'test/cli/own-project.test.ts',
  'test/cli/partition-count.test.ts',
  'test/cli/plan-calendars.test.ts', // the CLI spawned on a jobs module
  'test/cli/redis-unreachable.test.ts',
  'test/cli/services.test.ts',
  'test/cli/tuning-flags.test.ts',
  'test/cluster/**/*.test.ts',
  'test/dashboard/*.browser.test.ts',
  'test/dashboard/browser-missing.test.ts',
  'test/dashboard/mount.test.ts',
  'test/deploy/**/*.test.ts',
  'test/ops/**/*.test.ts',
  'test/pack/**/*.test.ts',
  'test/queue/backfill-overrides.test.ts', // a backfill --data process SIGKILLed part way
  'test/queue/exclusion-group.test.ts',
  'test/queue/fencing.test.ts',
  'test/queue/group.test.ts', // three worker processes, one SIGKILLed
  'test/queue/lost-attempt.test.ts',
  'test/queue/overlap.test.ts',
  'test/queue/shutdown.test.ts',
  'test/scheduler/audit-kill.test.ts', // a changer process SIGKILLed at hooks, 8 times
  'test/scheduler/backfill-only.test.ts', // a CLI backfill process SIGKILLed
  'test/scheduler/decorators.test.ts', // runs tsc twice
  'test/scheduler/redis-outage.test.ts',
  'test/setup/redis-server.test.ts',
  'test/store/format-upgrade.test.ts',
  'test/tracing/traces.test.ts',
];

/**
 * Chaos and failover tests: kills, take-overs and failovers, counted within seconds of each. They run
 * after the others, three files at a time: each waits on kills and lease lapses far more than it
 * computes.
 */
const CHAOS = [
  'test/chaos/**/*.test.ts',
  'test/cluster/failover.test.ts',
  'test/cluster/partition-loop.test.ts', // a paused master: counts what fired in a 2 s window
  'test/scheduler/failover.test.ts',
  'test/scheduler/failover-processes.test.ts',
  'test/scheduler/exactly-once.test.ts',
  'test/scheduler/stalled-replica.test.ts', // replicas stopped 8 s (SIGSTOP) past their history
  'test/scheduler/stalled-backfill.test.ts', // a backfill stopped past its owed time on a busy queue
  'test/scheduler/alerts/alerts-chaos.test.ts', // 3 replicas SIGKILLed one every 1-2 s for 20 s
];

/**
 * Tests whose volume is the claim itself (the published scale): 100,000 schedules selected and paused by a
 * label; 10,000 aligned schedules spread over 30 s (on manual time: the volume is the cost; the file's
 * pause case rides along); 25,000 one-shots through a replica whose heap must come back. They run beside
 * unit, redis and process; the bulk verbs at a small volume are tested in `redis` (bulk.test.ts),
 * spread's offsets and options in spread-options.test.ts.
 */
const VOLUME = [
  'test/labels/bulk-100k.test.ts',
  'test/scheduler/spread.test.ts',
  'test/scheduler/replica-memory.test.ts',
];

/**
 * The chaos tests with the least room: they run last, two at a time. trust-chaos's schedules fire every
 * 200 ms, so a replica starved of CPU for a second coalesces occurrences as a scheduler behind (it did,
 * three chaos files at a time); replica-share measures shares of a burst between replicas in one
 * process, which needs the cores.
 */
const CHAOS_TIGHT = ['test/scheduler/replica-share.test.ts', 'test/scheduler/trust-chaos.test.ts'];

/**
 * Forks beside each other. Most of a Redis or process test's time is spent waiting (on Redis, on
 * timers, on a child), so more forks than cores can still pay; vitest's default (cores - 1) would run
 * one file at a time on a 2-core box. Three, not four: on a 2-core box at half its usual speed
 * (2026-12-07) four forks outran the waits of the volume and process tests (spread's staging, the
 * cluster misfire, a migration, cancelOther). Every test has its own key prefix or Redis.
 */
const WORKERS = Number(process.env.BULLBEAT_TEST_WORKERS) || 3;

/**
 * Scratch folders (the pack tests' npm installs, clones, private redis-servers) on tmpfs where the box
 * has one and TMPDIR is not set: copying an installed project costs far less kernel time in memory
 * than on disk. The forks and every process they start inherit it.
 */
function scratchOnTmpfs(): void {
  if (process.env.TMPDIR) return;
  try {
    accessSync('/dev/shm', constants.W_OK);
    const dir = `/dev/shm/bullbeat-test-${process.getuid?.() ?? 0}`;
    mkdirSync(dir, { recursive: true });
    process.env.TMPDIR = dir;
  } catch {
    // no tmpfs: the system's temporary folder
  }
}
scratchOnTmpfs();

/**
 * Chaos files side by side, two at a time (`BULLBEAT_CHAOS_WORKERS=1`: one at a time, for a box that is busy
 * otherwise). Three at a time on a 2-core box at half its usual speed (2026-12-07) starved the cluster chaos's
 * replicas: occurrences neither run nor recorded within its 20 s settle, on 9a1f4ab as on main (92 of 2,638
 * once); two at a time passed, in the same wall time. What those occurrences were doing is an open finding
 * (the load issue's note of that day), not settled by this setting.
 */
const CHAOS_WORKERS = Number(process.env.BULLBEAT_CHAOS_WORKERS) || 2;
const chaosTimeouts = { testTimeout: 120_000, hookTimeout: 120_000 };

// The test Redis: REDIS_URL, else 127.0.0.1:6379, else a private redis-server (test/setup/redis-server.ts).
// The fixtures that tests spawn, compiled against the build (test/setup/child-fixtures.ts).
const withRedis = {
  globalSetup: ['test/setup/redis-server.ts', 'test/setup/child-fixtures.ts'],
  setupFiles: ['test/setup/redis-env.ts'],
};

/** The build's files (`dist/` of this checkout), by absolute path. */
const BUILD = new RegExp(
  `^${fileURLToPath(new URL('./dist/', import.meta.url)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
);

export default defineConfig({
  test: {
    pool: 'forks',
    sequence: { sequencer: SlowFirst },
    // bounds against a hang, with room for a busy box (a property test, a take-over under load)
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // pure code with no state between files: one fork runs file after file, its modules loaded once
        test: { name: 'unit', include: UNIT, maxWorkers: WORKERS, isolate: false },
      },
      {
        extends: true,
        // Every test here has its own key prefix and closes what it opens, and a test that changes
        // process.env puts it back: its files share a fork's loaded modules, rather than loading
        // bullmq and the house once per file (most of an isolated run's time).
        test: {
          name: 'redis',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...PROCESS, ...CHAOS, ...CHAOS_TIGHT, ...VOLUME],
          maxWorkers: WORKERS,
          isolate: false,
          // the build (`dist/`, which jobs-module fixtures import) loaded by Node as it is, not transformed
          // file by file as the sources are: seconds per fork
          server: { deps: { external: [BUILD] } },
          ...withRedis,
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS,
          exclude: [...CHAOS, ...CHAOS_TIGHT],
          maxWorkers: WORKERS,
          // as in `redis`: every file closes what it starts and puts process.env back
          isolate: false,
          // a child's start-up (node, a build, a browser, a cluster) is slow on a busy box
          testTimeout: 90_000,
          hookTimeout: 120_000,
          ...withRedis,
        },
      },
      {
        extends: true,
        // as in `redis`: own key prefixes, nothing left open
        test: { name: 'volume', include: VOLUME, maxWorkers: WORKERS, isolate: false, ...withRedis },
      },
      {
        extends: true,
        test: {
          name: 'chaos',
          include: CHAOS,
          // three files side by side: they wait on kills and lease lapses far more than they compute, and
          // pass three at a time with a busy loop on one of a 2-core box's cores
          maxWorkers: CHAOS_WORKERS,
          sequence: { groupOrder: 1 },
          ...chaosTimeouts,
          ...withRedis,
        },
      },
      {
        extends: true,
        test: {
          name: 'chaos-tight',
          include: CHAOS_TIGHT,
          maxWorkers: Math.min(2, CHAOS_WORKERS),
          sequence: { groupOrder: 2 },
          ...chaosTimeouts,
          ...withRedis,
        },
      },
    ],
  },
});
