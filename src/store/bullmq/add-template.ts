// A schedule's jobs differ in little: the job id (its fire time's digits), BullMQ's `timestamp` (the
// add's clock) and the data. BullMQ builds each one's three script arguments from scratch (a `Job`,
// its JSON, its options encoded and checked, both packed with msgpack): ~10 µs a job, most of it
// garbage. A template keeps the two packed arguments of a job BullMQ built, with where the job id and
// the timestamp sit in them, and makes the next job's by writing its own id and timestamp there.
//
// It is trusted only once it reproduced, byte for byte, what BullMQ built for a second job of the
// same options (another id, another timestamp): the options' encoding, the key list and the script
// are then BullMQ's, whatever its version does. Until then, and for options it cannot reproduce (a
// size limit checked per job, an id of another length), BullMQ builds every job.

/** What BullMQ built for one job: its script (an index) and the script's keys, its packed arguments. */
export interface BuiltJob {
  kind: number;
  keys: readonly unknown[];
  jobId: string;
  timestamp: number;
  /** `pack([prefix, jobId, name, timestamp, ...])` */
  args: Buffer;
  /** `pack(optsAsJSON(opts))` */
  opts: Buffer;
}

interface Spots {
  /** Where the id's bytes start in the packed arguments and in the packed options. */
  idInArgs: number;
  idInOpts: number;
  /** Where the timestamp's float64 starts in the packed arguments (after its 0xcb marker). */
  timestampAt: number;
}

/** One schedule's jobs (one `like` options object, one queue and name). */
export class AddTemplate {
  #first: BuiltJob | undefined;
  #spots: Spots | undefined;
  /** A second job did not come out as BullMQ built it: BullMQ builds all of them. */
  #refused = false;
  /** The first job's id up to its last `-` (a schedule's jobs share it; BullMQ's checks passed on it). */
  #stem = '';

  constructor(
    readonly owner: object,
    readonly name: string,
  ) {}

  /** The job's two packed arguments and its kind, made here; undefined: let BullMQ build it. */
  make(
    jobId: string,
    timestamp: number,
  ): { kind: number; keys: readonly unknown[]; args: Buffer; opts: Buffer } | undefined {
    const first = this.#first;
    const spots = this.#spots;
    if (!first || !spots || jobId.length !== first.jobId.length || !jobId.startsWith(this.#stem)) {
      return undefined;
    }
    return { kind: first.kind, keys: first.keys, ...this.#fill(first, spots, jobId, timestamp) };
  }

  /** A job BullMQ built: the first is kept; the second tells whether the template makes them right. */
  learn(built: BuiltJob): void {
    if (this.#refused || this.#spots) return;
    const first = this.#first;
    if (!first) {
      this.#first = built;
      this.#stem = built.jobId.slice(0, built.jobId.lastIndexOf('-') + 1);
      return;
    }
    const spots = first.jobId.length === built.jobId.length ? spotsOf(first) : undefined;
    if (
      !spots ||
      built.kind !== first.kind ||
      built.keys.length !== first.keys.length ||
      built.keys.some((k, i) => k !== first.keys[i]) ||
      built.jobId === first.jobId ||
      built.timestamp === first.timestamp
    ) {
      if (spots && built.jobId.length === first.jobId.length)
        this.#first = built; // try with the next one
      else this.#refused = true;
      return;
    }
    if (!built.jobId.startsWith(this.#stem)) {
      this.#refused = true;
      return;
    }
    const made = this.#fill(first, spots, built.jobId, built.timestamp);
    if (made.args.equals(built.args) && made.opts.equals(built.opts)) this.#spots = spots;
    else this.#refused = true;
  }

  /** True once jobs are made here. */
  get ready(): boolean {
    return this.#spots !== undefined;
  }

  #fill(first: BuiltJob, spots: Spots, jobId: string, timestamp: number): { args: Buffer; opts: Buffer } {
    const args = Buffer.from(first.args);
    args.write(jobId, spots.idInArgs, 'latin1');
    args.writeDoubleBE(timestamp, spots.timestampAt);
    const opts = Buffer.from(first.opts);
    opts.write(jobId, spots.idInOpts, 'latin1');
    return { args, opts };
  }
}

/** Where a job's id and timestamp sit in what BullMQ built: each found exactly once, or undefined. */
function spotsOf(job: BuiltJob): Spots | undefined {
  // an id of other than one-byte characters would not be written back byte for byte
  if (Buffer.byteLength(job.jobId) !== job.jobId.length) return undefined;
  const id = Buffer.from(job.jobId, 'latin1');
  const stamp = Buffer.alloc(9);
  stamp[0] = 0xcb;
  stamp.writeDoubleBE(job.timestamp, 1);
  const idInArgs = onlyAt(job.args, id);
  const idInOpts = onlyAt(job.opts, id);
  const stampAt = onlyAt(job.args, stamp);
  if (idInArgs === undefined || idInOpts === undefined || stampAt === undefined) return undefined;
  return { idInArgs, idInOpts, timestampAt: stampAt + 1 };
}

function onlyAt(hay: Buffer, needle: Buffer): number | undefined {
  const at = hay.indexOf(needle);
  if (at < 0 || hay.indexOf(needle, at + 1) >= 0) return undefined;
  return at;
}
