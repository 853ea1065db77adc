// A schedule's jobs differ in little: the job id (its fire time's digits), BullMQ's `timestamp` (the
// add's clock, or the claim's for a job staged ahead), a staged job's `delay`, and the data. BullMQ
// builds each one's three script arguments from scratch (a `Job`, its JSON, its options encoded and
// checked, both packed with msgpack): ~10 µs a job, most of it garbage. A template keeps the two packed arguments of a job BullMQ built, with where the job id and
// the timestamp sit in them, and makes the next job's by writing its own id and timestamp there.
//
// It is trusted only once it reproduced, byte for byte, what BullMQ built for a second job of the
// same options (another id, another timestamp): the options' encoding, the key list and the script
// are then BullMQ's, whatever its version does. Until then, and for options it cannot reproduce (a
// size limit checked per job, an id of another length), BullMQ builds every job.
//
// A staged job (`timestamp` and `delay` set, added as delayed: staged-jobs.ts) has its timestamp in
// the packed options too, and its delay packed as an integer of 1, 2, 3 or 5 bytes (msgpack's widths):
// each width is a template of its own (`shapeOf`), proven by its own second job (bulk-add.ts has
// BullMQ build one at once: `learnFrom`).

/** What BullMQ built for one job: its script (an index) and the script's keys, its packed arguments. */
export interface BuiltJob {
  kind: number;
  keys: readonly unknown[];
  jobId: string;
  timestamp: number;
  /** A staged job's delay (its options' `delay`); undefined for a job added to run now. */
  delay?: number | undefined;
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
  /** A staged job's: where its timestamp's float64 starts in the packed options, and where its delay's packed integer does. */
  staged?: { timestampAt: number; delayAt: number };
}

/**
 * The shape of a job's options a template is for: 0 for a job added to run now, else a staged job's
 * delay's packed width (1: 0-127, 2: to 255, 3: to 65,535, 5: to 2^32 - 1, as msgpack packs a
 * positive integer); undefined for a delay no template makes (negative, fractional, larger).
 */
export function shapeOf(delay: number | undefined): number | undefined {
  if (delay === undefined) return 0;
  if (!Number.isInteger(delay) || delay < 0) return undefined;
  return delay < 0x80 ? 1 : delay < 0x100 ? 2 : delay < 0x10000 ? 3 : delay < 0x100000000 ? 5 : undefined;
}

/** Another positive delay of `shape` (`shapeOf`), next to `delay` (one of that shape). */
export function otherDelayOfShape(delay: number, shape: number): number {
  const floor = shape === 1 ? 1 : shape === 2 ? 0x80 : shape === 3 ? 0x100 : 0x10000;
  return delay > floor ? delay - 1 : delay + 1;
}

/** `delay` packed as msgpack packs a positive integer of `shape`'s width, at `at`. */
function writeDelay(buf: Buffer, at: number, shape: number, delay: number): void {
  if (shape === 1) buf[at] = delay;
  else if (shape === 2) {
    buf[at] = 0xcc;
    buf[at + 1] = delay;
  } else if (shape === 3) {
    buf[at] = 0xcd;
    buf.writeUInt16BE(delay, at + 1);
  } else {
    buf[at] = 0xce;
    buf.writeUInt32BE(delay, at + 1);
  }
}

/** One schedule's jobs of one shape (one `like` options object, one queue and name; `shapeOf`). */
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
    /** Its jobs' shape (`shapeOf`). */
    readonly shape = 0,
  ) {}

  /**
   * The job's two packed arguments and its kind, made here; undefined: let BullMQ build it. `delay`:
   * a staged job's (of this template's shape; `timestamp` is then the one its options give).
   */
  make(
    jobId: string,
    timestamp: number,
    delay?: number,
  ): { kind: number; keys: readonly unknown[]; args: Buffer; opts: Buffer } | undefined {
    const first = this.#first;
    const spots = this.#spots;
    if (
      !first ||
      !spots ||
      jobId.length !== first.jobId.length ||
      !jobId.startsWith(this.#stem) ||
      shapeOf(delay) !== this.shape
    ) {
      return undefined;
    }
    return { kind: first.kind, keys: first.keys, ...this.#fill(first, spots, jobId, timestamp, delay) };
  }

  /** A job BullMQ built: the first is kept; the second tells whether the template makes them right. */
  learn(built: BuiltJob): void {
    if (this.#refused || this.#spots) return;
    if (shapeOf(built.delay) !== this.shape) {
      this.#refused = true;
      return;
    }
    const first = this.#first;
    if (!first) {
      this.#first = built;
      this.#stem = built.jobId.slice(0, built.jobId.lastIndexOf('-') + 1);
      return;
    }
    const spots = first.jobId.length === built.jobId.length ? spotsOf(first, this.shape) : undefined;
    if (
      !spots ||
      built.kind !== first.kind ||
      built.keys.length !== first.keys.length ||
      built.keys.some((k, i) => k !== first.keys[i]) ||
      built.jobId === first.jobId ||
      built.timestamp === first.timestamp ||
      (this.shape !== 0 && built.delay === first.delay)
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
    const made = this.#fill(first, spots, built.jobId, built.timestamp, built.delay);
    if (made.args.equals(built.args) && made.opts.equals(built.opts)) this.#spots = spots;
    else this.#refused = true;
  }

  /** True once jobs are made here. */
  get ready(): boolean {
    return this.#spots !== undefined;
  }

  /** True once it is known whether jobs are made here (ready, or refused for good): nothing more to learn. */
  get settled(): boolean {
    return this.#spots !== undefined || this.#refused;
  }

  #fill(
    first: BuiltJob,
    spots: Spots,
    jobId: string,
    timestamp: number,
    delay: number | undefined,
  ): { args: Buffer; opts: Buffer } {
    const args = Buffer.from(first.args);
    args.write(jobId, spots.idInArgs, 'latin1');
    args.writeDoubleBE(timestamp, spots.timestampAt);
    const opts = Buffer.from(first.opts);
    opts.write(jobId, spots.idInOpts, 'latin1');
    if (spots.staged) {
      opts.writeDoubleBE(timestamp, spots.staged.timestampAt);
      writeDelay(opts, spots.staged.delayAt, this.shape, delay as number);
    }
    return { args, opts };
  }
}

/**
 * Where a job's id and timestamp (and a staged job's timestamp and delay in its options) sit in what
 * BullMQ built: each found exactly once, or undefined.
 */
function spotsOf(job: BuiltJob, shape: number): Spots | undefined {
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
  const spots: Spots = { idInArgs, idInOpts, timestampAt: stampAt + 1 };
  if (shape === 0) return spots;
  // the options' `delay` key (fixstr 5) and its value, packed at the width of this shape
  const delay = Buffer.alloc(6 + shape);
  delay.write('\xa5delay', 0, 'latin1');
  writeDelay(delay, 6, shape, job.delay as number);
  const stampInOpts = onlyAt(job.opts, stamp);
  const delayKey = onlyAt(job.opts, delay);
  if (stampInOpts === undefined || delayKey === undefined) return undefined;
  spots.staged = { timestampAt: stampInOpts + 1, delayAt: delayKey + 6 };
  return spots;
}

function onlyAt(hay: Buffer, needle: Buffer): number | undefined {
  const at = hay.indexOf(needle);
  if (at < 0 || hay.indexOf(needle, at + 1) >= 0) return undefined;
  return at;
}
