import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../errors/index.js';
import { packageVersion } from '../package-version.js';
import { MISFIRE_POLICIES, OVERLAP_POLICIES } from '../store/index.js';
import { withAlertOptions, withNotifierOption } from './alert-flags.js';
import type { CliIO } from './cli-io.js';
import { ExitCode } from './exit-codes.js';
import { shownLines } from './terminal-text.js';

/** The exit code the action of the command that ran asked for (commander actions return nothing). */
export interface ProgramResult {
  code: number;
}

const positiveInt = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new InvalidArgumentError(`expected ${what}`);
  }
  return Number(value);
};

const EXIT_CODES_HELP = `
Exit codes:
  0  done, or stopped cleanly on SIGINT/SIGTERM
  1  failure while running
  2  bad usage or configuration (flag, environment variable, jobs module, expression), or
     several deployments in Redis and none named
  3  Redis unreachable
  4  no schedule with that id
  5  status: no scheduler replica alive, or schedules late
  6  plan: starting the jobs module would change the stored schedules or calendars (0: no change)`;

const ENV_HELP = `
Environment (flags win):
  REDIS_URL                  redis://127.0.0.1:6379
  REDIS_CLUSTER_NODES        a Redis Cluster's seed nodes, host:port,... (wins over REDIS_URL)
  BULLBEAT_PREFIX            the deployment (see --prefix: several in Redis and none named is exit 2)
  LOG_LEVEL                  info (fatal, error, warn, info, debug, trace, silent)
  LOG_FORMAT                 pretty on a terminal, json otherwise
  BULLBEAT_LOG_SUMMARY_MS    60000: pretty output summarises routine run lines this often (0: every line)
  BULLBEAT_REDIS_TIMEOUT_MS  3000
  PORT, HOST                 the dashboard's address (3000, 0.0.0.0)
  BULLBEAT_DASHBOARD_TOKEN, BULLBEAT_DASHBOARD_USER, BULLBEAT_DASHBOARD_PASSWORD   dashboard credentials
  BULLBEAT_QUEUES, BULLBEAT_CONCURRENCY, BULLBEAT_LEASE_TTL_MS, BULLBEAT_LOCK_DURATION_MS,
  BULLBEAT_STALLED_INTERVAL_MS, BULLBEAT_EXCLUSION_WAIT_MS, BULLBEAT_RATE_MAX,
  BULLBEAT_RATE_DURATION_MS                                                        worker settings
  BULLBEAT_METRICS_PORT, BULLBEAT_METRICS_HOST, BULLBEAT_HEARTBEAT_MS,
  BULLBEAT_METRICS_SCHEDULES                      scheduler, worker and dev: metrics and fleet
  BULLBEAT_TUNING            knob=value,... as --tuning (scheduler, worker, dev; each reads its own knobs)`;

// The tuning knobs `--tuning` takes, by process (docs/tuning.md; the CLI's help test checks them
// against the library's lists). Written out: `--help` never imports the library's runtime.
const SCHEDULER_KNOBS =
  'claimBatch, claimLeaseMs, claimAheadMs, maxSleepMs, backpressure, commitAhead, replicaAcks';
const WORKER_KNOBS = 'leaseRenewMs, groupPollMs, slotWaitPollMs, recordLagMs, outcomeHoldMs';

/**
 * `--tuning knob=value`: repeatable, each a comma list (`--tuning claimBatch=1000,maxSleepMs=5000`).
 * One flag for every knob: the knobs stay apart from what a user must understand, as `tuning` does in
 * code, and a knob added to the library needs no new flag.
 */
const tuningOption = (knobs: string) =>
  new Option(
    '--tuning <knob=value>',
    `a tuning knob, repeatable or comma-separated (docs/tuning.md): ${knobs}; env BULLBEAT_TUNING; a flag wins over the variable, knob by knob, and both over the jobs module's tuning`,
  ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);

/**
 * Where commander writes; its parse errors start with `bullbeat:` like every other error, not `error:`,
 * and quote what was typed with its control characters escaped.
 */
const output = (io: CliIO) => ({
  writeOut: io.stdout,
  writeErr: (text: string) => io.stderr(shownLines(text)),
  outputError: (text: string, write: (text: string) => void) => write(text.replace(/^error: /, 'bullbeat: ')),
});

/**
 * Builds the `bullbeat` program. Each action stores its exit code in `result`; actions are loaded
 * lazily so that `--help` and `schedule:next` never import BullMQ.
 */
export function createProgram(io: CliIO, result: ProgramResult): Command {
  const program = new Command('bullbeat');
  program
    .description('Cron and interval schedules on BullMQ: each occurrence fires exactly once onto a queue.')
    .version(packageVersion(), '-V, --version')
    .option('--redis-url <url>', 'Redis to use (env REDIS_URL; default redis://127.0.0.1:6379)')
    .option(
      '--redis-cluster-nodes <nodes>',
      "a Redis Cluster's seed nodes, host:port,... or redis[s]://[:password@]host:port,... (env REDIS_CLUSTER_NODES; wins over --redis-url)",
    )
    .option(
      '--prefix <prefix>',
      "the deployment: --prefix, else env BULLBEAT_PREFIX, else the jobs module's, else the only one in Redis, else bullbeat; several in Redis and none named: exit 2 listing them",
    )
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env LOG_LEVEL; default info)')
    .addOption(
      new Option(
        '--log-format <format>',
        'json or pretty (env LOG_FORMAT; default pretty on a terminal)',
      ).choices(['json', 'pretty']),
    )
    .option(
      '--redis-timeout-ms <ms>',
      'how long to wait for Redis (env BULLBEAT_REDIS_TIMEOUT_MS; default 3000)',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput(output(io))
    .addHelpText('after', `${ENV_HELP}\n${EXIT_CODES_HELP}`);

  const run =
    (load: () => Promise<(...args: never[]) => Promise<number>>) =>
    async (...args: unknown[]) => {
      const action = await load();
      result.code = await (action as (...a: unknown[]) => Promise<number>)(...args);
    };

  const command = (name: string, description: string) =>
    program
      .command(name)
      .description(description)
      .showHelpAfterError('(run with --help for usage)')
      .exitOverride()
      .configureOutput(output(io));

  /** The operations flags of the long-running commands (metrics server, fleet heartbeat). */
  const withOps = (cmd: Command) =>
    cmd
      .option(
        '--metrics-port <n>',
        'serve /metrics, /healthz and /readyz on this port (env BULLBEAT_METRICS_PORT; default: off)',
      )
      .option(
        '--metrics-host <host>',
        'address of the metrics server (env BULLBEAT_METRICS_HOST; default 0.0.0.0)',
      )
      .option(
        '--heartbeat-ms <ms>',
        'fleet heartbeat; dead after 3 missed (env BULLBEAT_HEARTBEAT_MS; default 5000)',
      )
      .option(
        '--metrics-schedules <a,b>',
        'schedule ids given a label of their own in the metrics (env BULLBEAT_METRICS_SCHEDULES; default none)',
      );

  withAlertOptions(withOps(command('dev', 'scheduler, worker and dashboard in one process, for development')))
    .argument('<jobs-module>', 'a .js or .ts file whose default export is a SchedulerManager')
    .option('--port <n>', 'dashboard port (env PORT; default 3000)')
    .option('--host <host>', 'dashboard address (env HOST; default 127.0.0.1 when open, else 0.0.0.0)')
    .option(
      '--open',
      'dashboard without credentials, on 127.0.0.1 only (env BULLBEAT_DASHBOARD_OPEN=1; the default when no credentials are set and the host is loopback)',
    )
    .option('--no-dashboard', 'do not start the dashboard')
    .option(
      '--queues <a,b>',
      'queues to work (env BULLBEAT_QUEUES; default: every queue with a schedule this module handles)',
    )
    .option('--concurrency <n>', 'jobs run at once per queue (env BULLBEAT_CONCURRENCY; default 10)')
    .addOption(tuningOption(`${SCHEDULER_KNOBS}, ${WORKER_KNOBS}`))
    .action(run(async () => (await import('./commands/services.js')).devCommand(io)));

  withAlertOptions(
    withOps(
      command('scheduler', 'run a scheduler replica: upsert the schedules and enqueue their occurrences'),
    ),
  )
    .alias('schedule:run')
    .argument(
      '[jobs-module]',
      'a .js or .ts file whose default export is a SchedulerManager (none: the runtime schedules in Redis only)',
    )
    .option(
      '--max-fires-per-second <n>',
      "deployment-wide fire-rate cap: bursts smoothed to n occurrences a second (overrides the module's maxFiresPerSecond; give every replica the same)",
    )
    .addOption(tuningOption(SCHEDULER_KNOBS))
    .action(run(async () => (await import('./commands/services.js')).schedulerCommand(io)));

  withNotifierOption(
    withOps(command('worker', "run a worker: consume the schedules' queues and run their handlers")),
  )
    .argument('<jobs-module>', 'a .js or .ts file whose default export is a SchedulerManager')
    .option(
      '--queues <a,b>',
      'queues to work (env BULLBEAT_QUEUES; default: every queue with a schedule this module handles)',
    )
    .option('--concurrency <n>', 'jobs run at once per queue (env BULLBEAT_CONCURRENCY; default 10)')
    .option(
      '--grace-ms <ms>',
      'on shutdown, how long running jobs may finish before they are aborted',
      '30000',
    )
    .option('--lease-ttl-ms <ms>', "a dead worker's run slots free this long after (default 30000)")
    .option(
      '--lock-duration-ms <ms>',
      "BullMQ's job lock: a dead worker's jobs come back after it (default 30000)",
    )
    .option('--stalled-interval-ms <ms>', 'how often BullMQ looks for stalled jobs (default 30000)')
    .option(
      '--exclusion-wait-ms <ms>',
      'wait for a busy exclusion group, unless the schedule says (default 60000)',
    )
    .option('--rate-max <n>', "BullMQ's queue limiter: jobs per --rate-duration-ms (default none)")
    .option('--rate-duration-ms <ms>', "the limiter's window (default 1000)")
    .addOption(tuningOption(WORKER_KNOBS))
    .action(run(async () => (await import('./commands/services.js')).workerCommand(io)));

  withNotifierOption(
    command(
      'dashboard',
      'serve the dashboard: Bull Board, the schedules page, the JSON API, /metrics; it also watches for no-scheduler',
    ),
  )
    .option('--port <n>', 'port (env PORT; default 3000)')
    .option('--host <host>', 'address (env HOST; default 127.0.0.1 when open, else 0.0.0.0)')
    .option('--open', 'run without credentials, on 127.0.0.1 only (env BULLBEAT_DASHBOARD_OPEN=1)')
    .option('--read-only', "Bull Board's read-only mode; the API refuses writes")
    .option('--check', 'check the configuration (credentials, port) and exit: 0 if it would start, 2 if not')
    .action(run(async () => (await import('./commands/services.js')).dashboardCommand(io)));

  command('status', 'the fleet (scheduler replicas, workers) and late, failing, errored schedules; a probe')
    .option('--json', 'print JSON')
    .option('--late-threshold-ms <ms>', 'a schedule is late when due longer ago than this (default 1000)')
    .action(run(async () => (await import('./commands/status.js')).statusCommand(io)));

  command('schedule:list', 'list the schedules in Redis: a table, or JSON')
    .option('--selector <selector>', 'only schedules whose labels match: tenant=acme,team!=ops')
    .option('--status <status>', 'only schedules in this status: active, paused, completed, errored')
    .option('--queue <queue>', 'only schedules targeting this queue')
    .option('--search <text>', 'only schedules whose id, name or queue holds this text (any case)')
    .option('--limit <n>', 'only the first n (by name, then id)')
    .option('--json', 'print JSON (one array of schedules)')
    .action(run(async () => (await import('./commands/admin.js')).listCommand(io)));

  command(
    'schedule:import',
    'create or replace the schedules of an NDJSON file, one per line, as one bulk change',
  )
    .argument('<file>', 'one schedule a line, as POST /api/schedules takes it (docs/labels.md)')
    .option('--json', 'print JSON: { changeId, matched, count, failed }')
    .action(run(async () => (await import('./commands/bulk.js')).importCommand(io)));

  for (const [name, verb] of [
    ['schedule:pause', 'pause a schedule: it stops firing, keeping its state'],
    ['schedule:resume', 'resume a paused schedule (its next fire time is recomputed)'],
    ['schedule:trigger', 'enqueue one manual run of a schedule now'],
    ['schedule:remove', 'remove a schedule (cancelled; its pending occurrence is not enqueued)'],
  ] as const) {
    const bulk = name !== 'schedule:trigger';
    const c = command(name, verb).argument(bulk ? '[id]' : '<id>', 'the schedule id (see schedule:list)');
    if (bulk) c.option('--selector <selector>', 'instead of an id: every schedule whose labels match');
    // -- schedule controls: pause with a note, resume with a policy --
    if (name === 'schedule:pause')
      c.option('--note <text>', 'why (at most 500 characters), shown until resumed');
    if (name === 'schedule:trigger')
      c.option(
        '--data <json>',
        "this run's data instead of the schedule's (JSON, at most 64 KiB); recorded as overridden",
      );
    if (name === 'schedule:resume') {
      c.option(
        '--policy <policy>',
        'what was due while paused: skip = nothing runs, once = one run for all, all = each (default skip)',
      ).option(
        '--max-catch-up <n>',
        'under --policy all, refuse when more than this many were missed (default 100)',
      );
    }
    c.option('--json', 'print JSON: { id, action, done, ... }').action(
      run(async () =>
        name === 'schedule:trigger'
          ? (await import('./commands/admin.js')).actionCommand(io, name)
          : (await import('./commands/bulk.js')).controlCommand(io, name),
      ),
    );
  }

  command('schedule:show', 'one schedule in full: trigger, state, pause note, error, counters')
    .argument('<id>', 'the schedule id (see schedule:list)')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/schedule-show.js')).showCommand(io)));

  command(
    'alerts',
    'incidents (late, missed, failed, overdue, stuck, no worker, no scheduler), newest first, with their deliveries',
  )
    .option('--open', 'only the incidents still open')
    .option('--selector <selector>', 'only the incidents of schedules whose labels match: tenant=acme')
    .option('--limit <n>', 'at most this many incidents (default 50)', positiveInt('a whole number from 1'))
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/alerts.js')).alertsCommand(io)));

  command('schedule:history', 'who changed a schedule, what and when (its audit trail), newest first')
    .argument('<id>', 'the schedule id (a removed one while its trail is kept)')
    .option('--limit <n>', 'at most this many entries (default 50)', positiveInt('a whole number from 1'))
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/schedule-history.js')).historyCommand(io)));

  // -- named calendars: business days shared by schedules (calendar: '<name>') --
  const many = (value: string, list: string[] = []) => [...list, value];
  command('calendar:define', 'define a named calendar, or write its next version (audited)')
    .argument('<name>', 'the calendar name (letters, digits, . _ : -)')
    .option('--dates <dates>', 'dates that are not business days: 2026-12-25,2026-12-31..2027-01-02', many)
    .option(
      '--ics <file>',
      'an iCalendar (.ics) file to import: each event is a day off, named by its summary',
    )
    .option(
      '--rule <rule>',
      'weekends | "exclude fri,sat" | "business-day 3" | last-business-day (repeatable)',
      many,
    )
    .option(
      '--dry-run',
      'write nothing: list the schedules on the calendar whose next fire times the change moves, before and after (exit 6 when some move)',
    )
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/calendar.js')).calendarDefineCommand(io)));
  command('calendar:list', 'the named calendars with their versions')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/calendar.js')).calendarListCommand(io)));
  command('calendar:show', "a calendar's dates, rules and changes")
    .argument('<name>', 'the calendar name')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/calendar.js')).calendarShowCommand(io)));

  command('schedule:next', 'preview an expression: in words, and its next fire times')
    .argument('<expression>', 'a cron expression, quoted: "0 9 * * 1-5"')
    .option('--tz <zone>', 'IANA time zone the expression is read in', 'UTC')
    .option('-n, --count <n>', 'how many fire times', positiveInt('a whole number from 1'), 5)
    .option('--from <instant>', 'preview from this instant (ISO 8601 or epoch ms) instead of now')
    .option('--json', 'print JSON')
    .action(
      run(async () => {
        const { scheduleNext } = await import('./commands/schedule-next.js');
        return async (expression: string, options: Record<string, unknown>) => {
          if ((options.count as number) > 1000) throw new ConfigError('-n', 'at most 1000');
          scheduleNext(expression, options, io.now(), io.stdout);
          return ExitCode.ok;
        };
      }),
    );

  command('schedule:add', 'add a runtime schedule with a built-in trigger; it persists until removed')
    .requiredOption('--name <name>', 'the BullMQ job name (a worker handler of that name runs it)')
    .option('--id <id>', 'the schedule id (default: the name)')
    .option('--cron <expression>', 'fire on a cron expression')
    .option('--every <duration>', 'fire every 30s, 5m, 1.5h... (a bare number is seconds)')
    .option('--at <instant>', 'fire once at an instant (ISO 8601 or epoch ms)')
    .option('--tz <zone>', 'time zone of --cron (default UTC); an --every interval has none')
    .option(
      '--jitter <duration>',
      'random delay in [0, jitter] added to each occurrence: 10s, 2m (a bare number is seconds)',
    )
    .option('--queue <queue>', 'the BullMQ queue (default bullbeat)')
    .option('--data <json>', 'JSON data carried on each job')
    .option('--attempts <n>', 'BullMQ attempts (1 = no retry)')
    .option('--max-instances <n>', 'concurrent runs allowed across every worker; 0 = unlimited')
    .addOption(
      new Option(
        '--misfire <policy>',
        'occurrences seen late (every scheduler was down): once = one run for all, all = each, skip = none (default once)',
      ).choices(MISFIRE_POLICIES),
    )
    .option('--timeout-ms <ms>', "the handler's deadline: its signal aborts and the run fails (default none)")
    .option(
      '--overlap <policy>',
      'a run due while one is going: skip, bufferOne, bufferAll, cancelOther or allowAll (default: from --max-instances)',
    )
    .option('--pause-on-failure <n>', 'pause the schedule after N failed runs in a row (default never)')
    .option(
      '--except <entry>',
      'do not fire then, in the zone of --tz: a date 2026-12-25, a range 2026-12-24..2026-12-26 or a cron expression (to the minute); repeat the flag for more',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--calendar <name>', 'fire on the business days of this named calendar (see calendar:define)')
    .option(
      '--on-excluded <policy>',
      'with --calendar, on a day off: skip (default), next or previous business day',
    )
    .option(
      '--expect <field=value,...>',
      'what each occurrence must meet, told to the notifiers when it is not: startedWithin=2m,succeededBy=09:30,maxDuration=10m,failuresInARow=3,notify=ops (notify= repeatable; the flag too)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--replace', 'overwrite a schedule that already has this id (it prints what changed)')
    .option('--allow-past', 'accept an --at in the past: it runs once, now, as a late occurrence')
    .option('--immediately', 'also fire once now, when it is created, then follow the trigger')
    .option('--json', 'print the stored schedule as JSON')
    .action(run(async () => (await import('./commands/schedule-add.js')).addCommand(io)));

  // -- schedule controls: update --
  command('schedule:update', "change a runtime schedule's trigger or options; the rest is kept")
    .argument('<id>', 'the schedule id (see schedule:list)')
    .option('--name <name>', 'a new BullMQ job name')
    .option('--cron <expression>', 'a new trigger: fire on a cron expression')
    .option('--every <duration>', 'a new trigger: fire every 30s, 5m, 1.5h... (a bare number is seconds)')
    .option('--at <instant>', 'a new trigger: fire once at an instant (ISO 8601 or epoch ms)')
    .option('--tz <zone>', 'time zone of --cron (default UTC)')
    .option(
      '--jitter <duration>',
      'random delay in [0, jitter] added to each occurrence: 10s, 2m (a bare number is seconds)',
    )
    .option('--queue <queue>', 'a new BullMQ queue')
    .option('--data <json>', 'JSON data carried on each job')
    .option('--attempts <n>', 'BullMQ attempts (1 = no retry)')
    .option('--max-instances <n>', 'concurrent runs allowed across every worker; 0 = unlimited')
    .addOption(
      new Option('--misfire <policy>', 'late occurrences: once, all or skip').choices(MISFIRE_POLICIES),
    )
    .option('--timeout-ms <ms>', "the handler's deadline")
    .option('--allow-past', 'accept an --at in the past: it runs once, now, as a late occurrence')
    .option('--json', 'print the stored schedule as JSON')
    .action(run(async () => (await import('./commands/schedule-update.js')).updateCommand(io)));
  // -- end schedule controls --
  command(
    'schedule:backfill',
    "run the occurrences of a past range that nothing ran, by the schedule's own trigger",
  )
    .argument('[id]', 'the schedule id (see schedule:list)')
    .option(
      '--selector <selector>',
      'instead of an id: every schedule whose labels match, as one bulk change',
    )
    .requiredOption('--from <instant>', 'the start of the range, inclusive (ISO 8601 or epoch ms)')
    .requiredOption('--to <instant>', 'the end of the range, exclusive (ISO 8601 or epoch ms)')
    .option('--dry-run', 'list the occurrences and what would become of each; enqueue nothing')
    .option('--rate <n>', 'at most this many enqueued per second (default 100)')
    .option('--max <n>', 'refuse a range holding more occurrences than this (default 10000)')
    .addOption(
      new Option(
        '--overlap <policy>',
        "the schedule's overlap vocabulary, for the backfilled runs: bufferAll = one after another (default); allowAll = they may overlap; skip, bufferOne, cancelOther as on a schedule",
      ).choices(OVERLAP_POLICIES),
    )
    .addOption(
      new Option(
        '--only <which>',
        'run only these: failed = runs that failed for good (each once), missed = recorded missed or skipped, not-run = everything nothing ran (default)',
      ).choices(['failed', 'missed', 'not-run']),
    )
    .option(
      '--data <json>',
      "every run's data instead of the schedule's (JSON, at most 64 KiB); recorded as overridden",
    )
    .option('--json', 'print JSON (once everything is enqueued)')
    .action(run(async () => (await import('./commands/schedule-backfill.js')).backfillCommand(io)));

  // -- plan and revert --
  command(
    'plan',
    'what starting a jobs module would do to the stored schedules and calendars; writes nothing',
  )
    .argument('<jobs-module>', 'a .js or .ts file whose default export is a SchedulerManager')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/plan.js')).planCommand(io)));

  command('schedule:revert', 'put a runtime schedule back to a definition from its audit trail')
    .argument('<id>', 'the schedule id (see schedule:list)')
    .option('--to <entry>', 'the audit entry to go back to (default: the definition before the last change)')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/schedule-revert.js')).revertCommand(io)));
  // -- end plan and revert --

  // -- schedule:why and agenda --
  command(
    'schedule:why',
    "why didn't it run: the chain of facts of one occurrence, or its first missing link",
  )
    .argument('<id>', 'the schedule id (see schedule:list)')
    .option('--at <instant>', 'the occurrence at or before this instant (ISO 8601 or epoch ms; default now)')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/insight.js')).whyCommand(io)));

  command('agenda', 'every fire instant of every schedule in a window, in time order (UTC and each zone)')
    .option('--next <duration>', 'how far ahead: 30m, 24h, 7d (a bare number is seconds)', '24h')
    .option('--queue <queue>', 'only schedules of this queue')
    .option('--selector <selector>', 'only schedules whose labels match: tenant=acme')
    .option('--limit <n>', 'at most this many lines (default 1000)')
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/insight.js')).agendaCommand(io)));
  // -- end schedule:why and agenda --

  command(
    'import:bullmq',
    "create bullbeat schedules from a BullMQ queue's job schedulers and repeatable jobs",
  )
    .requiredOption('--queue <queue>', 'the BullMQ queue to read (its jobs keep going to it)')
    .addOption(
      new Option(
        '--payload <payload>',
        "each job's data: plain = the schedule's data, as BullMQ made it (your workers need no change); wrapped = bullbeat's envelope",
      )
        .choices(['plain', 'wrapped'])
        .default('plain'),
    )
    .option(
      '--remove-originals',
      "after every schedule is written, remove the BullMQ originals, handing over at their pending job: BullMQ runs it, bullbeat each occurrence after it (without it, a job scheduler's schedule stays paused while BullMQ runs it; idempotent)",
    )
    .option('--dry-run', 'print the mapping; write nothing')
    .option(
      '--tz <zone>',
      "zone of patterns that name none (BullMQ used its worker's zone; default: this machine's)",
    )
    .option('--json', 'print JSON')
    .action(run(async () => (await import('./commands/import-bullmq.js')).importBullmqCommand(io)));

  return program;
}
