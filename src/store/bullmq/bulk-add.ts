import { createRequire } from 'node:module';
import type { Job, JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type LuaScript, luaScript, sendScript } from '../connection/index.js';
import { AddTemplate } from './add-template.js';

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
   * The options `opts` are, but for their `jobId`: jobs given the same object are one schedule's (one
   * id stem, one queue, one name), and once BullMQ built two of them, the next ones are made from a
   * template of its output (add-template.ts). Undefined: BullMQ builds the job.
   */
  like?: object;
}

/** The templates of the jobs given a `like` (one per schedule's options, gone with them). */
const templates = new WeakMap<object, AddTemplate>();

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

function templateOf(like: object, queue: Queue, name: string): AddTemplate {
  let t = templates.get(like);
  if (!t || t.owner !== queue || t.name !== name) templates.set(like, (t = new AddTemplate(queue, name)));
  return t;
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
      // a size limit is checked per job's data, a set timestamp is not the add's clock: BullMQ builds those
      const template = like && !opts.sizeLimit && !opts.timestamp ? templateOf(like, queue, name) : undefined;
      const made = template?.ready ? template.make(String(opts.jobId), Date.now()) : undefined;
      if (made) {
        keysFor(kindKeys, made.kind, made.keys);
        argv.push(made.kind + 1, made.args, dataJson(data), made.opts);
        sent.push(i);
        continue;
      }
      if (opts.parent) throw new Error('bullbeat: a job with a parent is added by BullMQ, not in one call');
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
      const keys = call.args.slice(0, -3);
      keysFor(kindKeys, kind, keys);
      argv.push(kind + 1, ...call.args.slice(-3));
      sent.push(i);
      const [args, text, packed] = call.args.slice(-3);
      // learnt from where the data's JSON is what the template path makes of it
      if (template && Buffer.isBuffer(args) && Buffer.isBuffer(packed) && text === dataJson(data)) {
        template.learn({ kind, keys, jobId: String(job.id), timestamp: job.timestamp, args, opts: packed });
      }
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
