import type { WorkerClock } from '../../src/queue/worker-clock.js';
import type { FireClock } from '../../src/scheduler/fire/fire-clock.js';

/**
 * A clock that moves only when the test says so; timers fire in due order as it advances. It serves
 * the worker runtime (`WorkerClock`) and the fire loop (`FireClock`). `onMove` hears each time it
 * moves to, before the timers due then fire (see manual-time.ts: Redis's clock follows it).
 */
export class ManualClock implements WorkerClock, FireClock {
  private timers: { id: number; at: number; callback: () => void }[] = [];
  private nextId = 1;

  constructor(
    private current = 1_700_000_000_000,
    private readonly onMove?: (now: number) => void | Promise<void>,
  ) {}

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ id, at: this.current + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** When the earliest timer not fired yet is due (undefined: none). */
  get nextAt(): number | undefined {
    return this.timers.length === 0 ? undefined : Math.min(...this.timers.map((t) => t.at));
  }

  /** Timers not fired yet. */
  get pending(): number {
    return this.timers.length;
  }

  /** Move time forward by `ms`, firing every timer due on the way and letting its promises settle. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      if (next.at !== this.current) {
        this.current = next.at;
        await this.onMove?.(this.current);
      }
      next.callback();
      await settle();
    }
    if (target !== this.current) {
      this.current = target;
      await this.onMove?.(this.current);
    }
    await settle();
  }
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
