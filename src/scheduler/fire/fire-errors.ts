import type { Claim, ScheduleDefinition } from '../../store/index.js';
import type { FireLoopDeps, FireLoopStats } from './fire-loop-types.js';

/**
 * A claim that cannot be planned or enqueued: mark its schedule errored (its claim completed without
 * a run, only if still ours: see `store/lua/mark-errored-9.lua`), count it, log it and emit `errored`. When that
 * write fails, `failed` is told and the claim's lease lapses as after any failure.
 */
export async function markClaimErrored(
  deps: FireLoopDeps,
  stats: FireLoopStats,
  now: number,
  what: { claim: Claim; def: ScheduleDefinition | undefined; err: unknown },
  failed: (err: unknown, message: string) => void,
): Promise<void> {
  const { claim, def } = what;
  const error = what.err instanceof Error ? what.err : new Error(String(what.err));
  const reason = error.message;
  try {
    const info = { reason, at: now, fireAt: claim.fireAt };
    if (!(await deps.store.markErrored(claim.id, claim.claim, info, now))) return;
  } catch (err) {
    failed(err, 'bullbeat: marking a schedule errored failed; it is claimed again when its lease lapses');
    return;
  }
  stats.errored++;
  deps.logger.error(
    { err: error, scheduleId: claim.id },
    'bullbeat: schedule errored: it cannot be planned or enqueued, and fires no more until fixed',
  );
  deps.events.emit('errored', {
    scheduleId: claim.id,
    ...(def && { name: def.name }),
    fireAt: claim.fireAt,
    reason,
    error,
  });
}
