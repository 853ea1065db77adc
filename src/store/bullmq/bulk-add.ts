import { createRequire } from 'node:module';
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type LuaScript, luaScript, sendScript } from '../connection/index.js';
import { AddTemplate, otherDelayOfShape, shapeOf } from './add-template.js';

// A queue's jobs added by one script call: BullMQ's own add scripts (`addStandardJob`,
// `addDelayedJob`, `addPrioritizedJob`, as the installed BullMQ ships them) run in a loop inside one
// Lua call, each with the arguments BullMQ itself builds for it. `queue.addBulk` sends one EVALSHA per
// job in a pipeline: each costs Redis a script call (~11k instructions), and this process a command,
// its reply and a promise. Same writes, same events, same answers per job.

const require = createRequire(import.meta.url);

/** One BullMQ add script: the module BullMQ ships it in, and the name its commands carry. */
const KINDS = [
  ['addStandardJob', 'addStandardJob-9.js'],
  ['addDelayedJob', 'addDelayedJob-6.js'],
  ['addPrioritizedJob', 'addPrioritizedJob-9.js'],
] as const;

/**
 * The loop script. Each BullMQ script becomes a function of (KEYS, ARGV), its text unchanged: its
 * `KEYS` and `ARGV` are the function's parameters, its `return`s the function's.
 *
 * KEYS: each kind's keys, kinds in KINDS order (a kind with no job in the call has none).
 * ARGV[1]: per kind, how many keys it has in this call (0: not used), comma-separated.
 * ARGV[2...]: per job, its kind (1-based, KINDS order) and BullMQ's three ARGV (packed arguments, data,
 * packed options). Answers each job's answer, in order (its id, or BullMQ's negative error code).
 */
function loopScript(): string {
  const parts = KINDS.map(([name, file], i) => {
    const { content } = require(`bullmq/dist/cjs/scripts/${file}`)[name] as { content: string };
    return `local function add${i + 1}(KEYS, ARGV)\n${content}\nend`;
  });
  return `${parts.join('\n')}
local adds = {add1, add2, add3}
local keysOf, from = {}, 1
local k = 0
for n in string.gmatch(ARGV[1], '[^,]+') do
  k = k + 1
  n = tonumber(n)
  local list = {}
  for i = 1, n do list[i] = KEYS[from + i - 1] end
  keysOf[k] = list
  from = from + n
end
local out = {}
for i = 2, #ARGV, 4 do
  local kind = tonumber(ARGV[i])
  out[#out + 1] = adds[kind](keysOf[kind], {ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]})
end
return out
`;
}

/**
 * The loop script and the BullMQ version its scripts are from; undefined when BullMQ's files are not
 * where 6.x keeps them (then every queue adds through `addBulk`).
 */
const loop: { script: LuaScript; version: string } | undefined = (() => {
  try {
    return { script: luaScript(loopScript()), version: require('bullmq/package.json').version as string };
  } catch {
    return undefined;
  }
})();

/** One job to add, as `queue.addBulk` takes it. */
export interface JobToAdd {
  name: string;
  data: unknown;
  opts: JobsOptions;
  /**
   * The options `opts` are, but for their `jobId` (and a staged job's `timestamp` and `delay`): jobs
   * given the same object are one schedule's (one id stem, one queue, one name), and once BullMQ built
   * two of them of a shape (added to run now, or staged with a delay of one packed width), the next
   * ones are made from a template of its output (add-template.ts). Undefined: BullMQ builds the job.
   */
  like?: object;
}

/**
 * The templates of the jobs given a `like` (per schedule's options, gone with them): one per shape
 * (`shapeOf`: a job added to run now, or a staged job by its delay's packed width).
 */
const templates = new WeakMap<object, (AddTemplate | undefined)[]>();

/** A job's data as BullMQ stores it (`Job.asJSON`). */
function dataJson(data: unknown): string {
  return JSON.stringify(data === undefined ? {} : data);
}

/** The keys of a kind of job in this call: BullMQ gives a queue one key list per script. */
function keysFor(kindKeys: (readonly unknown[] | undefined)[], kind: number, keys: readonly unknown[]): void {
  const known = kindKeys[kind];
  if (!known) kindKeys[kind] = keys;
  else if (known.length !== keys.length || known.some((k, j) => k !== keys[j])) {
    throw new Error('bullbeat: BullMQ gave one queue two key lists');
  }
}

function templateOf(like: object, queue: Queue, name: string, shape: number): AddTemplate {
  let byShape = templates.get(like);
  if (!byShape) templates.set(like, (byShape = []));
  let t = byShape[shape];
  if (!t || t.owner !== queue || t.name !== name) byShape[shape] = t = new AddTemplate(queue, name, shape);
  return t;
}

/**
 * The shape of a job's options a template may make (`shapeOf`), or undefined: a job with no timestamp
 * of its own (the add's clock; a delay its schedule's options give is the same in each), or a staged
 * one (its timestamp and delay set, as `stagedJobOptions` sets them). A size limit is checked per
 * job's data: BullMQ builds those.
 */
function templateShape(opts: JobsOptions): number | undefined {
  if (opts.sizeLimit) return undefined;
  if (opts.timestamp === undefined) return 0;
  return typeof opts.delay === 'number' && opts.delay > 0 ? shapeOf(opts.delay) : undefined;
}

/** BullMQ's internals this file builds on (6.x): not in its typings, checked once per queue. */
interface QueueInternals {
  jobsOpts?: JobsOptions;
  Job: typeof Job;
  backend: {
    version?: string;
    addJobToTransaction(
      client: unknown,
      job: unknown,
      jobId: string | undefined,
      parentKeyOpts: { parentKey?: string; parentDependenciesKey?: string },
    ): Promise<unknown>;
    client: Promise<unknown>;
  };
  opts: { telemetry?: unknown };
}

/** A stand-in for BullMQ's client that records the script call BullMQ builds and sends nothing. */
function capture(): { client: unknown; last: () => { name: string; args: unknown[] } | undefined } {
  let call: { name: string; args: unknown[] } | undefined;
  const client = {
    runCommand(name: string, args: unknown[]) {
      call = { name, args };
      // BullMQ awaits the answer and checks it for an error code: a positive one, never looked at
      return Promise.resolve('0');
    },
  };
  return {
    client,
    last: () => {
      const c = call;
      call = undefined;
      return c;
    },
  };
}

/** What BullMQ builds to add one job: its script (an index in KINDS), the keys, its three ARGV. */
interface BullBuilt {
  kind: number;
  keys: unknown[];
  argv: unknown[];
  jobId: string;
  timestamp: number;
}

/** Build one job as BullMQ's `addBulk` does, its script call captured (`cap`), nothing sent. Throws what BullMQ's checks throw. */
function buildJob(
  q: QueueInternals,
  queue: Queue,
  cap: ReturnType<typeof capture>,
  name: string,
  data: unknown,
  opts: JobsOptions,
): BullBuilt {
  const merged = { ...q.jobsOpts, ...opts, jobId: opts.jobId, telemetry: opts.telemetry };
  const job = new q.Job(queue, name, data, merged, merged.jobId);
  const json = job.asJSON();
  // protected in BullMQ's typings; createBulk calls it the same way
  (job as unknown as { validateOptions(json: unknown): void }).validateOptions(json);
  void q.backend.addJobToTransaction(cap.client, json, job.id, {});
  const call = cap.last();
  const kind = KINDS.findIndex(([k]) => call?.name === k || call?.name.startsWith(`${k}:`));
  if (!call || kind < 0)
    throw new Error(`bullbeat: BullMQ added a job by an unexpected script (${call?.name})`);
  return {
    kind,
    keys: call.args.slice(0, -3),
    argv: call.args.slice(-3),
    jobId: String(job.id),
    timestamp: job.timestamp,
  };
}

/**
 * Teach `template` a job BullMQ built (`built`, of `opts`), learnt from where the data's JSON is what
 * the template path makes of it. A staged job's template is proven at once: BullMQ builds (`build`),
 * and nothing sends, a second job of the same options with another id, timestamp and delay (of the
 * same packed width), which the template must make byte for byte; one of a job to run now waits for
 * the next job (its timestamp is BullMQ's clock: a set one would change its options).
 */
function learnFrom(
  template: AddTemplate,
  data: unknown,
  opts: JobsOptions,
  built: BullBuilt,
  build: (opts: JobsOptions) => BullBuilt,
): void {
  if (template.settled) return;
  const taught = (b: BullBuilt, delay: number | undefined) => {
    const [args, text, packed] = b.argv;
    if (!Buffer.isBuffer(args) || !Buffer.isBuffer(packed) || text !== dataJson(data)) return false;
    const { kind, keys, jobId, timestamp } = b;
    template.learn({ kind, keys, jobId, timestamp, delay, args, opts: packed });
    return true;
  };
  if (template.shape === 0) {
    taught(built, undefined);
    return;
  }
  const delay = opts.delay as number;
  if (!taught(built, delay) || template.ready) return;
  const other = otherDelayOfShape(delay, template.shape);
  const id = String(opts.jobId);
  // the id's last character changed (another id of the same length and stem)
  const jobId = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
  try {
    taught(build({ ...opts, jobId, timestamp: (opts.timestamp as number) + 1, delay: other }), other);
  } catch {
    // BullMQ refused the probe: the template stays unproven (BullMQ builds the jobs)
  }
}

/**
 * True when this file can add `queue`'s jobs itself: BullMQ's internals are as expected, the queue's
 * BullMQ is the one the scripts were read from, and the queue has no telemetry.
 */
export function canAddInOneCall(queue: Queue): boolean {
  const q = queue as unknown as Partial<QueueInternals>;
  return (
    loop !== undefined &&
    q.backend?.version === loop.version &&
    typeof q.backend.addJobToTransaction === 'function' &&
    typeof q.Job === 'function' &&
    !q.opts?.telemetry
  );
}

/**
 * Add `jobs` to `queue` in one script call. Returns, per job, its id or the error BullMQ gives it (its
 * option checks, `sizeLimit`, a negative answer of its script): a refused job does not stop the others.
 * Throws when the call fails (the connection, Redis): which jobs were added is then unknown, as with a
 * failed `addBulk`; a job added again keeps its id (BullMQ answers a duplicate with the same id).
 * A job with a parent is not supported here (`canAddInOneCall` callers never have one).
 */
export async function addJobsInOneCall(queue: Queue, jobs: readonly JobToAdd[]): Promise<(string | Error)[]> {
  const q = queue as unknown as QueueInternals;
  const out: (string | Error)[] = new Array(jobs.length);
  const cap = capture();
  // per job sent: its kind (1-based) and BullMQ's three ARGV; `sent` the jobs' indexes, in that order
  const argv: unknown[] = [];
  const sent: number[] = [];
  const kindKeys: (readonly unknown[] | undefined)[] = [undefined, undefined, undefined];
  for (let i = 0; i < jobs.length; i++) {
    const { name, data, opts, like } = jobs[i]!;
    try {
      const shape = like ? templateShape(opts) : undefined;
      const template = shape === undefined ? undefined : templateOf(like!, queue, name, shape);
      const made = template?.ready
        ? shape === 0
          ? template.make(String(opts.jobId), Date.now())
          : template.make(String(opts.jobId), opts.timestamp as number, opts.delay)
        : undefined;
      if (made) {
        keysFor(kindKeys, made.kind, made.keys);
        argv.push(made.kind + 1, made.args, dataJson(data), made.opts);
        sent.push(i);
        continue;
      }
      if (opts.parent) throw new Error('bullbeat: a job with a parent is added by BullMQ, not in one call');
      const built = buildJob(q, queue, cap, name, data, opts);
      keysFor(kindKeys, built.kind, built.keys);
      argv.push(built.kind + 1, ...built.argv);
      sent.push(i);
      if (template) learnFrom(template, data, opts, built, (o) => buildJob(q, queue, cap, name, data, o));
    } catch (err) {
      out[i] = err as Error;
    }
  }
  if (sent.length === 0) return out;
  const keys: unknown[] = [];
  for (const k of kindKeys) if (k) keys.push(...k);
  const args = [keys.length, ...keys, kindKeys.map((k) => k?.length ?? 0).join(','), ...argv];
  const client = (await q.backend.client) as unknown as Redis;
  const answers = (await sendScript(client, loop!.script, args as (string | number | Buffer)[])) as unknown[];
  sent.forEach((i, n) => {
    const answer = answers[n];
    out[i] =
      typeof answer === 'number' && answer < 0
        ? new Error(`bullbeat: BullMQ refused job ${jobs[i]!.opts.jobId ?? ''} (code ${answer})`)
        : String(answer);
  });
  return out;
}
