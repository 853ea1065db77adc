import type { WorkerClock } from '../../src/queue/worker-clock.js';

/** A clock that moves only when the test says so; timers fire in due order as it advances. */
export class ManualClock implements WorkerClock {
  private timers: { id: number; at: number; callback: () => void }[] = [];
  private nextId = 1;

  constructor(private current = 1_700_000_000_000) {}

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
      this.current = next.at;
      next.callback();
      await settle();
    }
    this.current = target;
    await settle();
  }
}

/** Let pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
