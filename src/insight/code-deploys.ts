import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import type { AuditChange } from '../store/index.js';
import { AuditTrail } from '../store/index.js';
import { checkedNextFire } from '../triggers/checked-next-fire.js';
import type { TriggerJSON } from '../triggers/trigger.js';
import { triggerFromJSON } from '../triggers/trigger-from-json.js';
import { withoutJitter } from '../triggers/without-jitter.js';

/** One code schedule's change in a deploy: created, changed (its fields), restored or orphaned. */
export interface CodeDeployChange {
  scheduleId: string;
  op: string;
  /** The audit entry (`<ms>-<seq>`). */
  entry: string;
  at: number;
  changes: AuditChange[];
  /**
   * A change of the trigger (`update`, `restore`): the next fire times (epoch ms, up to 3) after the
   * deploy under the trigger before and after it, as `bullbeat plan` shows them; absent when the trigger
   * did not change or cannot be walked here (a custom trigger, one on a named calendar).
   */
  nextBefore?: number[];
  nextAfter?: number[];
}

/** The changes a deploy of the jobs module made to code schedules: audit entries by `code` close in time. */
export interface CodeDeploy {
  /** Its first and last entry (epoch ms). */
  from: number;
  to: number;
  changes: CodeDeployChange[];
}

/** Options of `codeDeploys`. */
export interface CodeDeploysOptions {
  /** At most this many deploys, newest first. Default 5. */
  limit?: number;
  /** Entries further apart than this belong to different deploys (ms). Default 60,000. */
  gapMs?: number;
  /** Entries read per schedule. Default 5. */
  perSchedule?: number;
}

const CODE_OPS = new Set(['create', 'update', 'restore', 'orphan']);

/**
 * What the last deploys of code did to the code schedules, from their audit trails (the entries a
 * start writes as `code`: create, update, restore, orphan), grouped into deploys by time: entries less
 * than `gapMs` apart are one deploy. Reads only; an entry trimmed from a trail is not shown.
 */
export async function codeDeploys(
  manager: SchedulerManager,
  options: CodeDeploysOptions = {},
): Promise<CodeDeploy[]> {
  const { limit = 5, gapMs = 60_000, perSchedule = 5 } = options;
  const ids = (await manager.list()).map((j) => j.id);
  const found = await new AuditTrail(internalsOf(manager).redis, internalsOf(manager).keys).newestOf(
    ids,
    perSchedule,
  );
  const changes: CodeDeployChange[] = found
    .filter(({ entry }) => entry.source === 'code' && CODE_OPS.has(entry.op))
    .map(({ scheduleId, entry }) => ({
      scheduleId,
      op: entry.op,
      entry: entry.id,
      at: entry.at,
      changes: entry.op === 'create' ? [] : (entry.changes ?? []),
      ...(entry.op !== 'create' && triggerTimes(entry.changes ?? [], entry.at)),
    }))
    .sort((a, b) => b.at - a.at || (a.scheduleId < b.scheduleId ? -1 : 1));
  const deploys: CodeDeploy[] = [];
  for (const c of changes) {
    const last = deploys[deploys.length - 1];
    if (last && last.from - c.at <= gapMs) {
      last.from = c.at;
      last.changes.push(c);
    } else {
      if (deploys.length === limit) break;
      deploys.push({ from: c.at, to: c.at, changes: [c] });
    }
  }
  return deploys;
}

/** The next `count` fire times after `from` of a stored trigger's JSON (empty when it cannot be walked). */
function nextTimes(json: unknown, from: number, count = 3): number[] | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const spec = json as { type?: unknown };
  if (spec.type === 'custom' || spec.type === 'calendar') return undefined;
  try {
    const trigger = triggerFromJSON(withoutJitter(json as TriggerJSON));
    const out: number[] = [];
    let last: number | null = null;
    while (out.length < count) {
      const next = checkedNextFire(trigger, last, last ?? from);
      if (next === null) break;
      out.push(next);
      last = next;
    }
    return out;
  } catch {
    return undefined;
  }
}

/** A change of trigger's next fire times before and after, from the deploy on. */
function triggerTimes(
  changes: readonly AuditChange[],
  at: number,
): { nextBefore: number[]; nextAfter: number[] } | undefined {
  const c = changes.find((x) => x.field === 'trigger');
  if (!c) return undefined;
  const nextBefore = nextTimes(c.before, at);
  const nextAfter = nextTimes(c.after, at);
  return nextBefore && nextAfter ? { nextBefore, nextAfter } : undefined;
}
