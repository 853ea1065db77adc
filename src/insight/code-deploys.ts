import type { SchedulerManager } from '../scheduler/index.js';
import { internalsOf } from '../scheduler/index.js';
import type { AuditChange } from '../store/index.js';
import { AuditTrail } from '../store/index.js';

/** One code schedule's change in a deploy: created, changed (its fields), restored or orphaned. */
export interface CodeDeployChange {
  scheduleId: string;
  op: string;
  /** The audit entry (`<ms>-<seq>`). */
  entry: string;
  at: number;
  changes: AuditChange[];
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
