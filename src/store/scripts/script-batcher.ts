import { CALL_FAILED } from './script-codes.js';

/** One call of a batched script: its values, in the script's per-call layout. */
interface Pending {
  args: readonly (string | number)[];
  resolve: (out: unknown[]) => void;
  reject: (err: unknown) => void;
}

interface Lane {
  id: number;
  queue: Pending[];
  /** A batch of this lane is on its way to Redis. */
  busy: boolean;
  /** A flush is due at the end of this tick. */
  soon: boolean;
}

/** Sends one batch of a lane: the values of every call in it, in order. Resolves with their outputs. */
export type SendBatch = (lane: number, args: (string | number)[]) => Promise<unknown[]>;

/**
 * Gathers the calls of one script (`start-runs`, `finish-runs`) into batches, one lane per partition
 * (a batch touches one slot). A call made while no batch of its lane is on its way goes at the end of
 * the tick, with the calls made in that tick; one made while a batch is on its way waits for it, then
 * goes with every call made meanwhile (at most `maxBatch`). Nothing waits at low load; under a burst
 * hundreds of runs cost a handful of script calls, which is most of what a run costs the worker's CPU.
 *
 * Each call's output is its `width` values of the batch's output; a first value of -1 is that call's
 * error (the script ran each call under `pcall`), rejected for it alone. A failed batch (connection,
 * script) rejects every call in it.
 */
export class ScriptBatcher {
  private readonly lanes = new Map<number, Lane>();

  constructor(
    private readonly send: SendBatch,
    /** Values of the output per call. */
    private readonly width: number,
    private readonly maxBatch = 100,
  ) {}

  /** Make one call on `lane` (a partition): resolves with its `width` output values. */
  call(lane: number, args: readonly (string | number)[]): Promise<unknown[]> {
    let l = this.lanes.get(lane);
    if (!l) this.lanes.set(lane, (l = { id: lane, queue: [], busy: false, soon: false }));
    const line = l;
    return new Promise((resolve, reject) => {
      line.queue.push({ args, resolve, reject });
      if (!line.busy && !line.soon) {
        line.soon = true;
        queueMicrotask(() => {
          line.soon = false;
          this.flush(line);
        });
      }
    });
  }

  private flush(line: Lane): void {
    if (line.busy || line.queue.length === 0) return;
    const batch = line.queue.splice(0, this.maxBatch);
    line.busy = true;
    const args: (string | number)[] = [];
    for (const p of batch) for (const a of p.args) args.push(a);
    let sent: Promise<unknown[]>;
    try {
      sent = this.send(line.id, args);
    } catch (err) {
      sent = Promise.reject(err); // thrown before sending: still this batch's error alone
    }
    sent.then(
      (out) => {
        for (let i = 0; i < batch.length; i++) {
          const mine = out.slice(i * this.width, (i + 1) * this.width);
          if (mine[0] === CALL_FAILED) batch[i]!.reject(new Error(String(mine[this.width - 1])));
          else batch[i]!.resolve(mine);
        }
        this.next(line);
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
        this.next(line);
      },
    );
  }

  private next(line: Lane): void {
    line.busy = false;
    this.flush(line);
  }
}
