import { TriggerBudgetError } from '../errors/trigger-budget-error.js';

/** The time one schedule's `nextFire` (or one plan of a claim) may take, by default (ms of CPU). */
export const DEFAULT_TRIGGER_BUDGET_MS = 50;

/**
 * However loaded the box, a walk stops after this many budgets of wall time (a process descheduled
 * that long is not planning anything else either).
 */
const WALL_BUDGETS = 20;

interface Scope {
  budgetMs: number;
  /** Wall time (performance.now) after which the CPU spent is read. */
  checkAt: number;
  /** Wall time after which the walk stops whatever the CPU says. */
  stopAt: number;
  /** Process CPU (ms) at the start (a reading at most `CPU_READING_MAX_AGE_MS` older). */
  cpuAtStart: number;
}

let scope: Scope | undefined;

// Reading the CPU is a system call (~1-10 µs): one reading serves the scopes that start within a
// millisecond of it (it then counts at most that millisecond against them).
const CPU_READING_MAX_AGE_MS = 1;
let cpuReading = { wall: Number.NEGATIVE_INFINITY, cpu: 0 };

// This thread's CPU where Node has `process.threadCpuUsage`, else the process's, which also counts its
// other threads (GC helpers, worker threads): a budget then spent sooner, never later.
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;

function cpuMs(): number {
  const u = threadCpuUsage ? threadCpuUsage.call(process) : process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function recentCpu(wall: number): number {
  if (wall - cpuReading.wall > CPU_READING_MAX_AGE_MS) cpuReading = { wall, cpu: cpuMs() };
  return cpuReading.cpu;
}

/**
 * Run `fn` (a `nextFire`, or a plan that walks a trigger) under a time budget: the walks of the
 * built-in triggers call `checkTimeBudget`, which throws a `TriggerBudgetError` once `fn` has used
 * `budgetMs` of CPU (this thread's where Node tells it, else the process's). CPU, not wall time, so
 * a loaded box (this process descheduled) never errors a healthy trigger; a walk still stops after
 * `WALL_BUDGETS` budgets of wall time.
 * Nested calls run under the outer budget. A custom trigger's own loop is not interrupted: it is
 * judged when it returns (`checkedNextFire`).
 */
export function withTimeBudget<T>(budgetMs: number, fn: () => T): T {
  if (scope !== undefined) return fn();
  const wall = performance.now();
  scope = {
    budgetMs,
    checkAt: wall + budgetMs,
    stopAt: wall + budgetMs * WALL_BUDGETS,
    cpuAtStart: recentCpu(wall),
  };
  try {
    const out = fn();
    checkTimeBudget();
    return out;
  } finally {
    scope = undefined;
  }
}

/**
 * `withTimeBudget` for a walk that may be repeated (`pure`: a built-in trigger's, which keeps no state):
 * one over the budget is walked once more before its `TriggerBudgetError` stands. Where Node cannot
 * tell this thread's CPU (before 23.9), the budget counts the whole process's, garbage collection
 * included, so one pause of the process can spend a healthy walk's budget; a walk that needs the time
 * fails both. An impure walk (a custom trigger's `nextFire` may keep state) is walked once.
 */
export function withTimeBudgetTwice<T>(budgetMs: number, pure: boolean, fn: () => T): T {
  if (!pure) return withTimeBudget(budgetMs, fn);
  try {
    return withTimeBudget(budgetMs, fn);
  } catch (err) {
    if (!(err instanceof TriggerBudgetError)) throw err;
    return withTimeBudget(budgetMs, fn);
  }
}

/**
 * Throw a `TriggerBudgetError` when the budget of the `withTimeBudget` in progress is spent (no-op
 * outside one). Cheap (one clock read) until the budget's wall time has passed.
 */
export function checkTimeBudget(trigger = 'trigger'): void {
  const s = scope;
  if (s === undefined) return;
  const wall = performance.now();
  if (wall < s.checkAt) return;
  const spent = cpuMs() - s.cpuAtStart;
  if (spent >= s.budgetMs || wall >= s.stopAt) throw new TriggerBudgetError(trigger, s.budgetMs);
  // the box is loaded: look again once the rest of the budget could have been spent
  s.checkAt = wall + (s.budgetMs - spent);
}
