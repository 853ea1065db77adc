/** Something pino can write a line to. */
interface LineSink {
  write(line: string): unknown;
}

/** Options of `RoutineSummary`. */
export interface RoutineSummaryOptions {
  /** Where ordinary lines go (pino-pretty, one line each). */
  lines: LineSink;
  /** Where warnings and errors go (pino-pretty, every field on its own line). */
  loud: LineSink;
  /** How often the summary of routine lines is written (ms). */
  intervalMs: number;
  now?: () => number;
}

/** pino's `warn`: this level and above is always written in full. */
const LOUD_LEVEL = 40;

/**
 * The readable dev output (`bullbeat dev`, `npm start`, pretty logs): a pino destination that prints
 * warnings and errors in full, at once; of the routine lines of runs (info or below, carrying a
 * `scheduleId`), the first of each schedule and message as is, and the rest counted and written as
 * one summary line every `intervalMs` (`routine, last 60 s: refresh-cache ×4 ("cache refreshed"), ...`).
 * Lines of the processes themselves (started, listening, stopping) are written as they come.
 */
export class RoutineSummary {
  private readonly seen = new Set<string>();
  private counts = new Map<string, { n: number; msgs: Set<string> }>();
  private since: number;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly o: RoutineSummaryOptions) {
    this.now = o.now ?? Date.now;
    this.since = this.now();
    this.timer = setInterval(() => this.flush(), o.intervalMs);
    this.timer.unref();
    process.once('exit', () => this.flush());
  }

  write(chunk: string): boolean {
    for (const line of chunk.split('\n')) if (line !== '') this.line(line);
    return true;
  }

  /** Write the summary of what was counted since the last one (nothing when nothing was). */
  flush(): void {
    if (this.counts.size === 0) {
      this.since = this.now();
      return;
    }
    const parts = [...this.counts].map(
      ([id, c]) => `${id} ×${c.n} (${[...c.msgs].map((m) => JSON.stringify(m)).join(', ')})`,
    );
    const secs = Math.round((this.now() - this.since) / 100) / 10;
    this.counts = new Map();
    this.since = this.now();
    this.o.lines.write(
      `${JSON.stringify({ level: 30, time: this.now(), msg: `routine, last ${secs} s: ${parts.join(' · ')} (BULLBEAT_LOG_SUMMARY_MS=0 shows every line)` })}\n`,
    );
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }

  private line(line: string): void {
    let rec: { level?: unknown; scheduleId?: unknown; msg?: unknown };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      this.o.lines.write(`${line}\n`);
      return;
    }
    if (typeof rec.level === 'number' && rec.level >= LOUD_LEVEL) {
      this.o.loud.write(`${line}\n`);
      return;
    }
    if (typeof rec.scheduleId !== 'string') {
      this.o.lines.write(`${line}\n`);
      return;
    }
    const msg = typeof rec.msg === 'string' ? rec.msg : '';
    const key = `${rec.scheduleId}\u0000${msg}`;
    if (!this.seen.has(key)) {
      if (this.seen.size < 10_000) this.seen.add(key);
      this.o.lines.write(`${line}\n`);
      return;
    }
    let c = this.counts.get(rec.scheduleId);
    if (!c) this.counts.set(rec.scheduleId, (c = { n: 0, msgs: new Set() }));
    c.n++;
    if (c.msgs.size < 3) c.msgs.add(msg);
  }
}
